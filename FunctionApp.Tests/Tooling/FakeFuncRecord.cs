namespace FunctionApp.Tests.Tooling;

/// <summary>
/// What the fake <c>func</c> (or fake dotnet running the local host) wrote down: where and how it was started, whether
/// Azurite answered, what signal it got, the WidgetStorage connection and Auth:Authority it was given, whether the local
/// issuer answered, the grants in Azurite's callergrants table when it started (null if it could not read them), and the
/// OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL and OTEL_METRIC_EXPORT_INTERVAL it was given.
/// </summary>
public sealed record FakeFuncRecord(
    string Cwd,
    IReadOnlyList<string> Args,
    bool AzuriteListening,
    string? Signal,
    string? WidgetStorage,
    string? AuthAuthority = null,
    bool IssuerListening = false,
    IReadOnlyList<FakeFuncGrant>? Grants = null,
    string? OtlpEndpoint = null,
    string? OtlpProtocol = null,
    string? MetricExportInterval = null);
