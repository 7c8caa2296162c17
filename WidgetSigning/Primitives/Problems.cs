using Microsoft.AspNetCore.Http;

namespace WidgetSigning.Primitives;

/// <summary>
/// The service's problems, each type's status and title written once: both the HTTP path (<c>Http/ProblemMapper</c>)
/// and the queue path (<c>Queues/QueueSigningHandler</c>) read them from here. Each factory returns the exception to throw.
/// </summary>
internal static class Problems
{
    /// <summary>The realm of the <c>WWW-Authenticate</c> challenges (RFC 6750 §3).</summary>
    public const string Realm = "widget-signing";

    /// <summary>RFC 6750's code for a token that is malformed, expired, revoked or not for this resource.</summary>
    public const string InvalidTokenCode = "invalid_token";

    /// <summary>RFC 6750's code for a request that is malformed (two tokens, a scheme other than Bearer).</summary>
    public const string InvalidRequestCode = "invalid_request";

    /// <summary>400: the body is not a valid widget envelope; <paramref name="jsonPath"/> is <c>$</c> for the document itself.</summary>
    public static ProblemException InvalidEnvelope(string detail, string jsonPath = "$", Exception? innerException = null) =>
        new(new Problem(Types.InvalidEnvelope, StatusCodes.Status400BadRequest, "The envelope is invalid.", detail) { JsonPath = jsonPath }, null, innerException);

    /// <summary>400: a request field other than the envelope (a query parameter, a verify field) is invalid.</summary>
    public static ProblemException InvalidRequest(string detail, string? jsonPath = null, Exception? innerException = null) =>
        new(InvalidRequestProblem(StatusCodes.Status400BadRequest, detail) with { JsonPath = jsonPath }, null, innerException);

    /// <summary>A 4xx for a request the host could not read, as the host classed it.</summary>
    public static Problem InvalidRequestProblem(int status, string detail) =>
        new(Types.InvalidRequest, status, "The request is invalid.", detail);

    /// <summary>413: the body is over the configured limit (or the host's).</summary>
    public static ProblemException BodyTooLarge(string detail, Exception? innerException = null) =>
        new(BodyTooLargeProblem(detail), null, innerException);

    /// <summary>The problem of <see cref="BodyTooLarge"/>, for a refusal that is not an exception of ours.</summary>
    public static Problem BodyTooLargeProblem(string detail) =>
        new(Types.BodyTooLarge, StatusCodes.Status413PayloadTooLarge, "The request body is too large.", detail);

    /// <summary>
    /// 413 as the host's own refusal is, but named for what it is: chunk framing, not the envelope, passed the host's limit
    /// (RFC 9112 §7.1.1 asks for a 4xx when chunk extensions exceed what a server allows).
    /// </summary>
    public static ProblemException ChunkFramingTooLarge(string detail, Exception? innerException) =>
        new(new Problem(Types.ChunkFramingTooLarge, StatusCodes.Status413PayloadTooLarge, "The chunked framing is too large.", detail), null, innerException);

    /// <summary>415: the request's Content-Type is not UTF-8 JSON.</summary>
    public static ProblemException UnsupportedMediaType(string detail) =>
        new(new Problem(Types.UnsupportedMediaType, StatusCodes.Status415UnsupportedMediaType, "Unsupported media type.", detail));

    /// <summary>
    /// 503: no signing key could be obtained (Key Vault unreachable with nothing cached, a key revoked or unusable). A
    /// transient condition: HTTP retries after <c>Retry-After</c>, queue messages are retried. <paramref name="message"/>
    /// says why, for the logs; the client's detail names only <paramref name="receiver"/>, whose key it is, where known.
    /// </summary>
    public static ProblemException KeyUnavailable(string message, TimeSpan? retryAfter = null, string? receiver = null, Exception? innerException = null)
    {
        var detail = receiver is null
            ? "No signing key could be obtained; try again later."
            : $"No signing key of receiver '{receiver}' could be obtained; try again later. Other receivers are not affected.";
        var problem = new Problem(Types.KeyUnavailable, StatusCodes.Status503ServiceUnavailable, "The signing key is not available yet.", detail)
        {
            RetryAfter = retryAfter ?? TimeSpan.FromSeconds(30),
        };
        return new(problem, message, innerException);
    }

    /// <summary>404: no key exists for <paramref name="receiver"/>; nothing is signed or verified for it.</summary>
    public static ProblemException UnknownReceiver(string receiver) =>
        new(
            new Problem(Types.UnknownReceiver, StatusCodes.Status404NotFound, "The receiver is not known.", $"Receiver '{receiver}' has no signing key; nothing was signed."),
            $"Receiver '{receiver}' is not known: no signing key exists for it.");

    /// <summary>
    /// 404 of the anonymous key set: no Ed25519 key is published under the id. One fixed answer that names no receiver, for
    /// an unknown id and an HMAC-only receiver alike, so the key set cannot tell the two apart.
    /// </summary>
    public static ProblemException NoPublicKeySet() =>
        new(new Problem(Types.UnknownReceiver, StatusCodes.Status404NotFound, "The receiver is not known.", "No Ed25519 key set is published under this receiver id."));

    /// <summary>
    /// 429: a receiver not cached on the instance could not be looked up now: first-use lookups are rate-limited, so
    /// requests naming many unknown receivers cannot become a flood of Key Vault calls.
    /// </summary>
    public static ProblemException ReceiverLookupsLimited(string detail, TimeSpan retryAfter) =>
        new(new Problem(Types.ReceiverLookupsLimited, StatusCodes.Status429TooManyRequests, "Too many receivers are being looked up.", detail) { RetryAfter = retryAfter });

    /// <summary>400 that only the logs see: the client went away before it was answered; nothing was signed.</summary>
    public static ProblemException ClientClosedRequest(string? message = null, Exception? innerException = null) =>
        new(ClientClosedRequestProblem, message, innerException);

    /// <summary>The problem of <see cref="ClientClosedRequest"/>, for a cancellation by the request's own token.</summary>
    public static Problem ClientClosedRequestProblem { get; } = new(
        Types.ClientClosedRequest, StatusCodes.Status400BadRequest, "The client closed the request.", "The request was closed by the client before it was answered; nothing was signed.");

    /// <summary>413: the canonical form would exceed its bound; writing stopped there and nothing was signed.</summary>
    public static ProblemException CanonicalTooLarge(string detail) =>
        new(new Problem(Types.CanonicalTooLarge, StatusCodes.Status413PayloadTooLarge, "The canonical form is too large.", detail));

    /// <summary>408: the body arrived more slowly than allowed, so a few slow connections cannot hold the function's slots.</summary>
    public static ProblemException RequestTimeout(string detail, Exception? innerException = null) =>
        new(new Problem(Types.RequestTimeout, StatusCodes.Status408RequestTimeout, "The request body arrived too slowly.", detail), null, innerException);

    /// <summary>503: the instance's budget for envelope bytes in flight has no room now; the queue releases the message.</summary>
    public static ProblemException MemoryBudget(string detail, TimeSpan retryAfter) =>
        new(new Problem(Types.MemoryBudget, StatusCodes.Status503ServiceUnavailable, "The instance is busy.", detail) { RetryAfter = retryAfter });

    /// <summary>
    /// 401: no usable bearer token. <paramref name="detail"/> says why in fixed words (never a part of the token);
    /// <paramref name="errorCode"/> is the RFC 6750 code, null when no credentials were sent at all (RFC 6750 §3.1).
    /// </summary>
    public static ProblemException Unauthenticated(string detail, string? errorCode = InvalidTokenCode, Exception? innerException = null)
    {
        var problem = new Problem(Types.Unauthenticated, StatusCodes.Status401Unauthorized, "The caller is not authenticated.", detail)
        {
            WwwAuthenticate = errorCode is null
                ? $"Bearer realm=\"{Realm}\""
                : $"Bearer realm=\"{Realm}\", error=\"{errorCode}\", error_description=\"{detail}\"",
        };
        return new(problem, null, innerException);
    }

    /// <summary>403: the caller's token is valid but lacks <paramref name="role"/>, which the endpoint needs.</summary>
    public static ProblemException RoleRequired(string role) =>
        new(new Problem(Types.RoleRequired, StatusCodes.Status403Forbidden, "The caller lacks the app role.", $"The caller's token does not carry the app role '{role}', which this endpoint requires.")
        {
            WwwAuthenticate = $"Bearer realm=\"{Realm}\", error=\"insufficient_scope\", error_description=\"The token lacks the app role {role}.\"",
        });

    /// <summary>
    /// 403: the caller has no grant for <paramref name="receiver"/>. Checked before any key is looked up, so the answer
    /// says nothing about whether the receiver exists.
    /// </summary>
    public static ProblemException ReceiverNotGranted(string receiver) =>
        new(new Problem(Types.ReceiverNotGranted, StatusCodes.Status403Forbidden, "The caller is not granted the receiver.", $"The caller is not granted receiver '{receiver}'; nothing was signed."));

    /// <summary>503: the token issuer's OpenID configuration or signing keys could not be obtained, so no token can be checked.</summary>
    public static ProblemException AuthUnavailable(string detail = "The token issuer's signing keys could not be obtained; try again later.", TimeSpan? retryAfter = null, Exception? innerException = null) =>
        new(new Problem(Types.AuthUnavailable, StatusCodes.Status503ServiceUnavailable, "Tokens cannot be checked now.", detail) { RetryAfter = retryAfter ?? TimeSpan.FromSeconds(30) }, null, innerException);

    /// <summary>503: the caller's grants could not be read (the grants table did not answer); nothing was signed.</summary>
    public static ProblemException GrantsUnavailable(Exception? innerException = null) =>
        new(new Problem(Types.GrantsUnavailable, StatusCodes.Status503ServiceUnavailable, "Grants cannot be read now.", "The caller's grants could not be read; try again later.") { RetryAfter = TimeSpan.FromSeconds(10) }, null, innerException);

    /// <summary>
    /// 503: the signature's audit record could not be made durable in time (the audit store did not answer); nothing
    /// was answered with the signature. The queue releases the message.
    /// </summary>
    public static ProblemException AuditUnavailable(string detail, TimeSpan retryAfter, Exception? innerException = null) =>
        new(new Problem(Types.AuditUnavailable, StatusCodes.Status503ServiceUnavailable, "The audit store is not available.", detail) { RetryAfter = retryAfter }, null, innerException);

    /// <summary>
    /// A queue message that can never be signed (a malformed claim check, a missing or oversized claim blob, undecodable
    /// text, a receiver not allowed): it goes to the rejected queue with <paramref name="reason"/>. Never an HTTP answer.
    /// </summary>
    public static ProblemException MessageRejected(string reason, string jsonPath = "$", Exception? innerException = null) =>
        new(new Problem(Types.MessageRejected, StatusCodes.Status400BadRequest, "The message was rejected.", reason) { JsonPath = jsonPath }, null, innerException);

    /// <summary>The <c>type</c> URIs of the problems (RFC 9457); docs/api.md lists them.</summary>
    public static class Types
    {
        /// <summary>What every type starts with.</summary>
        public const string Prefix = "urn:widget-signing:problem:";

        /// <summary>400: the body is not a valid widget envelope.</summary>
        public const string InvalidEnvelope = Prefix + "invalid-envelope";

        /// <summary>400: a query parameter or other request field is invalid.</summary>
        public const string InvalidRequest = Prefix + "invalid-request";

        /// <summary>413: the body is over the configured limit.</summary>
        public const string BodyTooLarge = Prefix + "body-too-large";

        /// <summary>413: the host stopped a chunked body at its own limit while the envelope read so far was well within ours.</summary>
        public const string ChunkFramingTooLarge = Prefix + "chunk-framing-too-large";

        /// <summary>415: the body is not declared as UTF-8 JSON.</summary>
        public const string UnsupportedMediaType = Prefix + "unsupported-media-type";

        /// <summary>503: no signing key is available yet.</summary>
        public const string KeyUnavailable = Prefix + "key-unavailable";

        /// <summary>404: a receiver named has no key; nothing was signed.</summary>
        public const string UnknownReceiver = Prefix + "unknown-receiver";

        /// <summary>429: a receiver not cached on the instance could not be looked up now.</summary>
        public const string ReceiverLookupsLimited = Prefix + "receiver-lookups-limited";

        /// <summary>400: the client closed the request before it was answered.</summary>
        public const string ClientClosedRequest = Prefix + "client-closed-request";

        /// <summary>413: the canonical form would exceed its bound.</summary>
        public const string CanonicalTooLarge = Prefix + "canonical-too-large";

        /// <summary>408: the body arrived too slowly.</summary>
        public const string RequestTimeout = Prefix + "request-timeout";

        /// <summary>503: the instance is at its memory budget for envelopes in flight.</summary>
        public const string MemoryBudget = Prefix + "memory-budget";

        /// <summary>401: no bearer token, or one that is not valid for this app.</summary>
        public const string Unauthenticated = Prefix + "unauthenticated";

        /// <summary>403: the caller's token lacks the app role the endpoint needs.</summary>
        public const string RoleRequired = Prefix + "role-required";

        /// <summary>403: the caller is not granted a receiver it asked to sign for.</summary>
        public const string ReceiverNotGranted = Prefix + "receiver-not-granted";

        /// <summary>503: the token issuer's signing keys could not be obtained.</summary>
        public const string AuthUnavailable = Prefix + "auth-unavailable";

        /// <summary>503: the caller's grants could not be read.</summary>
        public const string GrantsUnavailable = Prefix + "grants-unavailable";

        /// <summary>503: the signature's audit record could not be made durable.</summary>
        public const string AuditUnavailable = Prefix + "audit-unavailable";

        /// <summary>Queues only: a message that can never be signed for a reason other than an invalid envelope.</summary>
        public const string MessageRejected = Prefix + "message-rejected";
    }
}
