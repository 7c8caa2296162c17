using WidgetSigning.Callers;
using WidgetSigning.Envelopes;
using WidgetSigning.Keys;
using WidgetSigning.Primitives;
using WidgetSigning.Signing;
using Microsoft.AspNetCore.Http;

namespace WidgetSigning.Http;

/// <summary>
/// Maps the exceptions that describe a client's mistake (or a transient key outage) to problem responses.
/// Anything else is a bug and is left to the host, which logs it.
/// </summary>
internal static class ProblemMapper
{
    /// <summary>The setting that bounds request bodies in the host itself (Kestrel), before the function runs.</summary>
    public const string HostBodyLimitSetting = "FUNCTIONS_REQUEST_BODY_SIZE_LIMIT";

    /// <summary>The realm of the <c>WWW-Authenticate</c> challenges (RFC 6750 §3).</summary>
    public const string Realm = "widget-signing";

    /// <summary>
    /// Returns a problem for <paramref name="exception"/> if a client caused it, counting a cancellation as the client
    /// closing the request when <paramref name="requestAborted"/> (the request's own token) has fired.
    /// </summary>
    public static bool TryMap(Exception exception, CancellationToken requestAborted, out ProblemResult problem)
    {
        if ((exception is OperationCanceledException && requestAborted.IsCancellationRequested) || exception is ClientClosedRequestException)
        {
            problem = new ProblemResult(StatusCodes.Status400BadRequest, ProblemTypes.ClientClosedRequest, "The client closed the request.", "The request was closed by the client before it was answered; nothing was signed.");
            return true;
        }

        return TryMap(exception, out problem);
    }

    /// <summary>Returns a problem for <paramref name="exception"/> if it is one the client should see.</summary>
    public static bool TryMap(Exception exception, out ProblemResult problem)
    {
        problem = exception switch
        {
            EnvelopeFormatException e => new ProblemResult(StatusCodes.Status400BadRequest, ProblemTypes.InvalidEnvelope, "The envelope is invalid.", e.Message)
            {
                JsonPath = e.JsonPath,
            },
            InvalidRequestException e => new ProblemResult(StatusCodes.Status400BadRequest, ProblemTypes.InvalidRequest, "The request is invalid.", e.Message)
            {
                JsonPath = e.JsonPath,
            },
            RequestBodyTooLargeException e => new ProblemResult(StatusCodes.Status413PayloadTooLarge, ProblemTypes.BodyTooLarge, "The request body is too large.", e.Message),

            // 413 as the host's own refusal is, but named for what it is: chunk framing, not the envelope, passed the
            // host's limit (RFC 9112 §7.1.1 asks for a 4xx when chunk extensions exceed what a server allows).
            ChunkFramingTooLargeException e => new ProblemResult(StatusCodes.Status413PayloadTooLarge, ProblemTypes.ChunkFramingTooLarge, "The chunked framing is too large.", e.Message),

            // Kestrel's own refusals while the body is read: its size limit (set by the host from
            // FUNCTIONS_REQUEST_BODY_SIZE_LIMIT) for a body with Content-Length (a chunked one is classified as it is
            // read, PooledRequestBody), a malformed chunked body, a body shorter than its Content-Length.
            BadHttpRequestException { StatusCode: StatusCodes.Status413PayloadTooLarge } => new ProblemResult(StatusCodes.Status413PayloadTooLarge, ProblemTypes.BodyTooLarge, "The request body is too large.", $"The request body exceeds the host's limit (setting {HostBodyLimitSetting})."),
            BadHttpRequestException e when e.StatusCode is >= 400 and < 500 => new ProblemResult(e.StatusCode, ProblemTypes.InvalidRequest, "The request is invalid.", $"The request body could not be read: {EchoText.Of(e.Message, 200)}"),
            CanonicalTooLargeException e => new ProblemResult(StatusCodes.Status413PayloadTooLarge, ProblemTypes.CanonicalTooLarge, "The canonical form is too large.", e.Message),
            RequestTimeoutException e => new ProblemResult(StatusCodes.Status408RequestTimeout, ProblemTypes.RequestTimeout, "The request body arrived too slowly.", e.Message),
            MemoryBudgetExceededException e => new ProblemResult(StatusCodes.Status503ServiceUnavailable, ProblemTypes.MemoryBudget, "The instance is busy.", e.Message)
            {
                RetryAfter = e.RetryAfter,
            },
            UnsupportedContentTypeException e => new ProblemResult(StatusCodes.Status415UnsupportedMediaType, ProblemTypes.UnsupportedMediaType, "Unsupported media type.", e.Message),
            SigningKeyUnavailableException e => new ProblemResult(
                StatusCodes.Status503ServiceUnavailable,
                ProblemTypes.KeyUnavailable,
                "The signing key is not available yet.",
                e.Receiver is { } receiver ? $"No signing key of receiver '{receiver}' could be obtained; try again later. Other receivers are not affected." : "No signing key could be obtained; try again later.")
            {
                RetryAfter = e.RetryAfter,
            },
            UnknownReceiverException e => new ProblemResult(
                StatusCodes.Status404NotFound,
                ProblemTypes.UnknownReceiver,
                "The receiver is not known.",
                $"Receiver '{e.Receiver?.Value}' has no signing key; nothing was signed."),
            ReceiverLookupsLimitedException e => new ProblemResult(StatusCodes.Status429TooManyRequests, ProblemTypes.ReceiverLookupsLimited, "Too many receivers are being looked up.", e.Message)
            {
                RetryAfter = e.RetryAfter,
            },
            TokenRejectedException e => new ProblemResult(StatusCodes.Status401Unauthorized, ProblemTypes.Unauthenticated, "The caller is not authenticated.", e.Message)
            {
                WwwAuthenticate = e.ErrorCode is null
                    ? $"Bearer realm=\"{Realm}\""
                    : $"Bearer realm=\"{Realm}\", error=\"{e.ErrorCode}\", error_description=\"{e.Message}\"",
            },
            RoleRequiredException e => new ProblemResult(StatusCodes.Status403Forbidden, ProblemTypes.RoleRequired, "The caller lacks the app role.", e.Message)
            {
                WwwAuthenticate = $"Bearer realm=\"{Realm}\", error=\"insufficient_scope\", error_description=\"The token lacks the app role {e.Role}.\"",
            },
            ReceiverNotGrantedException e => new ProblemResult(StatusCodes.Status403Forbidden, ProblemTypes.ReceiverNotGranted, "The caller is not granted the receiver.", e.Message),
            TokenValidationUnavailableException e => new ProblemResult(StatusCodes.Status503ServiceUnavailable, ProblemTypes.AuthUnavailable, "Tokens cannot be checked now.", e.Message)
            {
                RetryAfter = e.RetryAfter,
            },
            GrantsUnavailableException e => new ProblemResult(StatusCodes.Status503ServiceUnavailable, ProblemTypes.GrantsUnavailable, "Grants cannot be read now.", e.Message)
            {
                RetryAfter = e.RetryAfter,
            },
            _ => null!,
        };

        return problem is not null;
    }
}
