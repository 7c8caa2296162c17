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

    /// <summary>The scheme checked: <c>HMACSHA256</c>, or <c>Ed25519</c> when a <c>v1a</c> entry matched (or only <c>v1a</c> entries were offered).</summary>
    public string Algorithm { get; private init; } = SignedEnvelope.AlgorithmName;

    /// <summary>This outcome, naming <paramref name="algorithm"/> as the scheme checked.</summary>
    public VerificationOutcome For(string algorithm) => new(IsValid, KeyId, Failure, WidgetCount) { Algorithm = algorithm };

    /// <summary>A match under <paramref name="keyId"/>.</summary>
    public static VerificationOutcome Valid(string keyId, int widgetCount) => new(true, keyId, VerificationFailure.None, widgetCount);

    /// <summary>No match, or an unknown key id.</summary>
    public static VerificationOutcome Invalid(string? keyId, VerificationFailure failure, int widgetCount) => new(false, keyId, failure, widgetCount);
}
