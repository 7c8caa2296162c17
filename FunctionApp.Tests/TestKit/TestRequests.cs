using Microsoft.AspNetCore.Http;

namespace FunctionApp.Tests.TestKit;

/// <summary>Builds real ASP.NET Core requests, as Kestrel would hand them to the Functions host.</summary>
public static class TestRequests
{
    public static HttpRequest Post(string path, byte[] body, string? contentType = "application/json", string? query = null, bool sendContentLength = true, bool chunked = false)
    {
        var context = new DefaultHttpContext();
        var request = context.Request;
        request.Method = HttpMethods.Post;
        request.Scheme = "https";
        request.Host = new HostString("localhost");
        request.Path = path;
        if (query is not null)
        {
            request.QueryString = new QueryString(query);
        }

        if (contentType is not null)
        {
            request.ContentType = contentType;
        }

        request.Body = new MemoryStream(body, writable: false);
        if (chunked)
        {
            request.Headers.TransferEncoding = "chunked";
        }
        else if (sendContentLength)
        {
            request.ContentLength = body.Length;
        }

        context.Response.Body = new MemoryStream();
        return request;
    }
}
