using System.Text;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.TestKit;

/// <summary>A response as read off the socket by <see cref="RawHttpClient"/> (a chunked body already decoded).</summary>
public sealed record RawHttpResponse(int Status, Dictionary<string, string> Headers, byte[] Body)
{
    public string? MediaType => Headers.TryGetValue("Content-Type", out var type) ? type.Split(';')[0].Trim() : null;

    public JObject Json => JObject.Parse(Encoding.UTF8.GetString(Body));

    public string Text => Encoding.UTF8.GetString(Body);
}
