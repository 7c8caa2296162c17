namespace FunctionApp.Tests.Tooling;

/// <summary>What the fake <c>func</c> wrote down: where and how it was started, whether Azurite answered, what signal it got.</summary>
public sealed record FakeFuncRecord(string Cwd, IReadOnlyList<string> Args, bool AzuriteListening, string? Signal);
