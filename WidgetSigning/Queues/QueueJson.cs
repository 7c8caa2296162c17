using System.Globalization;
using Newtonsoft.Json;

namespace WidgetSigning.Queues;

/// <summary>Small shared pieces of the queue contracts' JSON.</summary>
internal static class QueueJson
{
    /// <summary>Writes one small JSON document (a queue message) to a string.</summary>
    public static string Write(Action<JsonWriter> write)
    {
        using var text = new StringWriter(CultureInfo.InvariantCulture);
        using (var json = new JsonTextWriter(text) { Formatting = Formatting.None })
        {
            write(json);
        }

        return text.ToString();
    }

    public static void WriteBlob(JsonWriter json, string name, BlobReference? blob)
    {
        if (blob is null)
        {
            return;
        }

        json.WritePropertyName(name);
        json.WriteStartObject();
        json.WritePropertyName("container");
        json.WriteValue(blob.Container);
        json.WritePropertyName("blob");
        json.WriteValue(blob.Blob);
        if (blob.ETag is not null)
        {
            json.WritePropertyName("etag");
            json.WriteValue(blob.ETag);
        }

        json.WriteEndObject();
    }
}
