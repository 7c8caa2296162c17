using System.Text;
using Microsoft.AspNetCore.Http;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.TestKit;

/// <summary>What a function's response looked like on the wire.</summary>
public sealed class HttpResponseSnapshot
{
    public HttpResponseSnapshot(int status, IHeaderDictionary headers, string? contentType, byte[] body)
    {
        Status = status;
        Headers = headers;
        ContentType = contentType;
        Body = body;
    }

    public int Status { get; }

    public IHeaderDictionary Headers { get; }

    public string? ContentType { get; }

    public byte[] Body { get; }

    public string Text => Encoding.UTF8.GetString(Body);

    public JObject Json => JObject.Parse(Text);

    public string Header(string name) => Headers.TryGetValue(name, out var value) ? value.ToString() : throw new Xunit.Sdk.XunitException($"response has no {name} header");
}
