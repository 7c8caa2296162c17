namespace WidgetSigning.Signing;

/// <summary>The answer of <see cref="EnvelopeVerifier"/>: valid or not, and under which key id.</summary>
internal sealed class VerificationOutcome
{
    private VerificationOutcome(bool isValid, string? keyId, VerificationFailure failure, int widgetCount)
    {
        IsValid = isValid;
        KeyId = keyId;
        Failure = failure;
        WidgetCount = widgetCount;
    }

    /// <summary>True when the signature matches the envelope under <see cref="KeyId"/>.</summary>
    public bool IsValid { get; }

    /// <summary>The key the answer is about: the one that matched, or the one the client named; null when none was named and none matched.</summary>
    public string? KeyId { get; }

    /// <summary>Why it is not valid; <see cref="VerificationFailure.None"/> when it is.</summary>
    public VerificationFailure Failure { get; }

    /// <summary>How many widgets the envelope holds.</summary>
    public int WidgetCount { get; }

    /// <summary>Always <c>HMACSHA256</c>.</summary>
    public string Algorithm => SignedEnvelope.AlgorithmName;

    /// <summary>A match under <paramref name="keyId"/>.</summary>
    public static VerificationOutcome Valid(string keyId, int widgetCount) => new(true, keyId, VerificationFailure.None, widgetCount);

    /// <summary>No match, or an unknown key id.</summary>
    public static VerificationOutcome Invalid(string? keyId, VerificationFailure failure, int widgetCount) => new(false, keyId, failure, widgetCount);
}
