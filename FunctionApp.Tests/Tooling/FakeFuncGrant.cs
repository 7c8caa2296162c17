namespace FunctionApp.Tests.Tooling;

/// <summary>One grant the fake <c>func</c> read from Azurite's callergrants table as it started.</summary>
/// <param name="Caller">The PartitionKey: the caller's object id.</param>
/// <param name="Receiver">The RowKey: the receiver id.</param>
/// <param name="GrantedBy">Who wrote it.</param>
public sealed record FakeFuncGrant(string Caller, string Receiver, string? GrantedBy);
