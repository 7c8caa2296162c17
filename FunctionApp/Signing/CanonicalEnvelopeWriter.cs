using FunctionApp.Envelopes;
using Newtonsoft.Json;

namespace FunctionApp.Signing;

/// <summary>
/// Writes an envelope as its canonical JSON (CANONICAL.md): byte-for-byte what Newtonsoft writes with
/// <c>CamelCasePropertyNamesContractResolver</c>, <c>Formatting.None</c> and <c>DateTimeZoneHandling.Utc</c>,
/// but driven member by member instead of through reflection, so no <see cref="Guid"/> or
/// <see cref="DateTime"/> is boxed and no per-value string is created.
/// </summary>
internal static class CanonicalEnvelopeWriter
{
    public static void Write(JsonWriter writer, WidgetEnvelope envelope)
    {
        writer.WriteStartObject();
        writer.WritePropertyName("widgets", escape: false);
        writer.WriteStartArray();
        var widgets = envelope.Widgets;
        for (var i = 0; i < widgets.Count; i++)
        {
            WriteWidget(writer, widgets[i]);
        }

        writer.WriteEndArray();
        writer.WriteEndObject();
    }

    private static void WriteWidget(JsonWriter writer, Widget widget)
    {
        writer.WriteStartObject();
        writer.WritePropertyName("id", escape: false);
        writer.WriteValue(widget.Id);
        writer.WritePropertyName("property0", escape: false);
        writer.WriteValue(widget.Property0);
        writer.WritePropertyName("property1", escape: false);
        writer.WriteValue(widget.Property1);
        writer.WritePropertyName("property2", escape: false);
        writer.WriteValue(widget.Property2);
        writer.WritePropertyName("property3", escape: false);
        writer.WriteValue(widget.Property3);
        writer.WritePropertyName("property4", escape: false);
        writer.WriteValue(widget.Property4);
        writer.WritePropertyName("property5", escape: false);
        writer.WriteValue(widget.Property5);
        writer.WritePropertyName("property6", escape: false);
        writer.WriteValue(widget.Property6);
        writer.WritePropertyName("property7", escape: false);
        writer.WriteValue(widget.Property7);
        writer.WritePropertyName("property8", escape: false);
        writer.WriteValue(widget.Property8);
        writer.WritePropertyName("property9", escape: false);
        writer.WriteValue(widget.Property9);
        writer.WritePropertyName("createdUtc", escape: false);
        writer.WriteValue(widget.CreatedUtc);
        writer.WriteEndObject();
    }
}
