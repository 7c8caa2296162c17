namespace FunctionApp.Tests.Tooling;

/// <summary>
/// What the fake <c>func</c> (or fake dotnet running the local host) wrote down: where and how it was started, whether
/// Azurite answered, what signal it got, the WidgetStorage connection it was given.
/// </summary>
public sealed record FakeFuncRecord(string Cwd, IReadOnlyList<string> Args, bool AzuriteListening, string? Signal, string? WidgetStorage);
