namespace FunctionApp.Benchmarks.Variants;

/// <summary>The request-side changes of issue 13, each of which <see cref="WidgetEnvelopeReaderBefore"/> can apply alone.</summary>
[Flags]
internal enum ReaderChanges
{
    /// <summary>The reader as it was.</summary>
    None = 0,

    /// <summary>Predict the next member and compare the name table's interned reference before the dictionary.</summary>
    PredictMember = 1,

    /// <summary>One <c>string[10]</c> per envelope instead of one per widget.</summary>
    ReuseArray = 2,

    /// <summary>Presize the widget list from the body's length.</summary>
    PresizeList = 4,

    /// <summary><c>Guid.TryParseExact(…, "D")</c> before the any-format parse.</summary>
    GuidExactFirst = 8,

    /// <summary>All of them, as <c>WidgetEnvelopeReader</c> now does.</summary>
    All = PredictMember | ReuseArray | PresizeList | GuidExactFirst,
}
