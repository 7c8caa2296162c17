using Microsoft.Extensions.Logging;

namespace WidgetSigning.Http;

/// <summary>
/// What <see cref="HttpOperation"/> needs to know of one endpoint: its function's name (in logs), its audit operation,
/// the app role a caller must hold, its span, and the logger its refusals are written to (the handler's own).
/// </summary>
internal sealed record HttpEndpoint(string Function, string Operation, string Role, string Span, ILogger Logger);
