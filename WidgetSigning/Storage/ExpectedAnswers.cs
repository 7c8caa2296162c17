namespace WidgetSigning.Storage;

/// <summary>
/// Storage answers a call expects, by error code (a create-once upload's <c>BlobAlreadyExists</c>, a missing container
/// just before it is created): for the blob calls made inside <see cref="Expect"/>, <see cref="ExpectedAnswerPolicy"/>
/// classifies them as success, so the SDK's HTTP span is not an error, and marks the SDK's client-method span, which
/// the SDK fails on any exception, for the telemetry's processor to clear. The call still throws as before.
/// </summary>
/// <remarks>
/// Only around calls whose REST layer decides by the status it got (uploads, creates): a call the SDK decides by the
/// classifier (GetProperties, Exists, leases) would stop throwing.
/// </remarks>
internal static class ExpectedAnswers
{
    /// <summary>The custom property on the SDK's client-method span naming the expected error code it met.</summary>
    public const string MarkProperty = "widgetsigning.expected_answer";

    private static readonly AsyncLocal<string[]?> Current = new();

    /// <summary>The error codes expected by the call in flight on this flow, if any.</summary>
    internal static string[]? Codes => Current.Value;

    /// <summary>Expects <paramref name="errorCodes"/> until disposed (dispose on the same flow, after the call).</summary>
    public static IDisposable Expect(params string[] errorCodes) => new Scope(errorCodes);

    private sealed class Scope : IDisposable
    {
        private readonly string[]? _previous = Current.Value;

        public Scope(string[] codes) => Current.Value = codes;

        public void Dispose() => Current.Value = _previous;
    }
}
