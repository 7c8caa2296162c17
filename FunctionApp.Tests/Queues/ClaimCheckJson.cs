using WidgetSigning.Queues;
using Newtonsoft.Json;

namespace FunctionApp.Tests.Queues;

/// <summary>Writes claim-check messages as a producer would (tests only: the service never writes one).</summary>
internal static class ClaimCheckJson
{
    public static string Write(BlobReference reference, string? memberName = null)
    {
        using var text = new StringWriter(System.Globalization.CultureInfo.InvariantCulture);
        using (var json = new JsonTextWriter(text))
        {
            json.WriteStartObject();
            json.WritePropertyName(ClaimCheck.MemberName);
            json.WriteStartObject();
            json.WritePropertyName("container");
            json.WriteValue(reference.Container);
            json.WritePropertyName(memberName ?? "blob");
            json.WriteValue(reference.Blob);
            json.WriteEndObject();
            json.WriteEndObject();
        }

        return text.ToString();
    }
}
