namespace WidgetSigning.Envelopes;

/// <summary>The document a client asks us to sign: an ordered list of widgets.</summary>
internal sealed class WidgetEnvelope
{
    /// <summary>Creates an envelope over <paramref name="widgets"/>, kept in the caller's order.</summary>
    public WidgetEnvelope(IReadOnlyList<Widget> widgets)
    {
        ArgumentNullException.ThrowIfNull(widgets);
        Widgets = widgets;
    }

    /// <summary>The widgets, in the order they are signed.</summary>
    public IReadOnlyList<Widget> Widgets { get; }
}
