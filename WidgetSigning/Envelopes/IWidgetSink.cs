namespace WidgetSigning.Envelopes;

/// <summary>
/// Receives each widget as soon as <see cref="WidgetEnvelopeReader"/> has read and validated it, in order, so work on
/// the envelope (writing and hashing its canonical form) can run behind the reader instead of after it. A widget
/// handed over may still belong to an envelope the reader rejects later: nothing may be released on the strength of
/// it until <see cref="WidgetEnvelopeReader.Read(Stream, IWidgetSink?)"/> returns.
/// </summary>
internal interface IWidgetSink
{
    /// <summary>Takes the next widget. Called on the reader's thread; keep it short.</summary>
    void Add(Widget widget);
}
