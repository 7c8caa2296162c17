using Newtonsoft.Json;

namespace FunctionApp.Queues;

/// <summary>Small shared pieces of the queue contracts' JSON.</summary>
internal static class QueueJson
{
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
        json.WriteEndObject();
    }
}
