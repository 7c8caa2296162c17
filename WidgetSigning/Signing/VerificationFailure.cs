namespace WidgetSigning.Signing;

/// <summary>Why a signature did not verify.</summary>
internal enum VerificationFailure
{
    /// <summary>It verified.</summary>
    None = 0,

    /// <summary>No accepted key gives this signature for this envelope (tampered envelope or signature, or a retired key).</summary>
    SignatureMismatch = 1,

    /// <summary>The key id given is not the current key nor an earlier version that is still accepted.</summary>
    UnknownKeyId = 2,

    /// <summary>The <c>webhook-timestamp</c> is older than <c>Webhooks:TimestampTolerance</c>: a replay, or a delayed message.</summary>
    TimestampTooOld = 3,

    /// <summary>The <c>webhook-timestamp</c> is further ahead than <c>Webhooks:TimestampTolerance</c>.</summary>
    TimestampInFuture = 4,
}
