using WidgetSigning.Primitives;

namespace WidgetSigning.Http;

/// <summary>
/// The <c>type</c> URIs of the service's problem details (RFC 9457); docs/api.md lists them. For the hosts: the core
/// reads them from <see cref="Problems.Types"/>, which the queue path shares.
/// </summary>
public static class ProblemTypes
{
    /// <summary>400: the body is not a valid widget envelope.</summary>
    public const string InvalidEnvelope = Problems.Types.InvalidEnvelope;

    /// <summary>400: a query parameter or other request field is invalid.</summary>
    public const string InvalidRequest = Problems.Types.InvalidRequest;

    /// <summary>413: the body is over the configured limit.</summary>
    public const string BodyTooLarge = Problems.Types.BodyTooLarge;

    /// <summary>
    /// 413: the host stopped a chunked body at its own limit (<c>FUNCTIONS_REQUEST_BODY_SIZE_LIMIT</c>, which counts
    /// chunk-size lines and chunk extensions with the data) while the envelope read so far was well within
    /// <c>Http:MaxRequestBodyBytes</c>: the framing, not the envelope, was too large.
    /// </summary>
    public const string ChunkFramingTooLarge = Problems.Types.ChunkFramingTooLarge;

    /// <summary>415: the body is not declared as UTF-8 JSON.</summary>
    public const string UnsupportedMediaType = Problems.Types.UnsupportedMediaType;

    /// <summary>503: no signing key is available yet.</summary>
    public const string KeyUnavailable = Problems.Types.KeyUnavailable;

    /// <summary>404: a receiver named has no key; nothing was signed.</summary>
    public const string UnknownReceiver = Problems.Types.UnknownReceiver;

    /// <summary>429: a receiver not cached on the instance could not be looked up now (lookups are rate-limited).</summary>
    public const string ReceiverLookupsLimited = Problems.Types.ReceiverLookupsLimited;

    /// <summary>
    /// 400: the client closed the request (disconnected, or aborted it) before it was answered. No standard status says
    /// this (nginx's 499 is not registered), so it is a 400 the client never sees; the logs record it (event 4003).
    /// </summary>
    public const string ClientClosedRequest = Problems.Types.ClientClosedRequest;

    /// <summary>413: the canonical form would exceed <c>Envelopes:MaxCanonicalBytes</c>.</summary>
    public const string CanonicalTooLarge = Problems.Types.CanonicalTooLarge;

    /// <summary>408: the body arrived more slowly than <c>Http:MinDataRateBytesPerSecond</c> allows.</summary>
    public const string RequestTimeout = Problems.Types.RequestTimeout;

    /// <summary>503: the instance is at its memory budget for envelopes in flight (<c>MemoryBudget:MaxBytesInFlight</c>); retry after <c>Retry-After</c>.</summary>
    public const string MemoryBudget = Problems.Types.MemoryBudget;

    /// <summary>401: no bearer token, or one that is not valid for this app; <c>WWW-Authenticate</c> says which.</summary>
    public const string Unauthenticated = Problems.Types.Unauthenticated;

    /// <summary>403: the caller's token lacks the app role the endpoint needs; the detail names it.</summary>
    public const string RoleRequired = Problems.Types.RoleRequired;

    /// <summary>403: the caller is not granted a receiver it asked to sign for; nothing was signed.</summary>
    public const string ReceiverNotGranted = Problems.Types.ReceiverNotGranted;

    /// <summary>503: the token issuer's signing keys could not be obtained; retry after <c>Retry-After</c>.</summary>
    public const string AuthUnavailable = Problems.Types.AuthUnavailable;

    /// <summary>503: the caller's grants could not be read; retry after <c>Retry-After</c>.</summary>
    public const string GrantsUnavailable = Problems.Types.GrantsUnavailable;

    /// <summary>503: the signature's audit record could not be made durable in the audit store; nothing was answered with it. Retry after <c>Retry-After</c>.</summary>
    public const string AuditUnavailable = Problems.Types.AuditUnavailable;
}
