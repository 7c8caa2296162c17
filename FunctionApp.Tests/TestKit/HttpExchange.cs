using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.AspNetCore.Mvc.Abstractions;
using Microsoft.AspNetCore.Routing;
using Newtonsoft.Json.Linq;

namespace FunctionApp.Tests.TestKit;

/// <summary>A real <see cref="DefaultHttpContext"/> request for calling a function class directly, and its executed response.</summary>
public sealed class HttpExchange
{
    private HttpExchange(DefaultHttpContext context) => Context = context;

    public DefaultHttpContext Context { get; }

    public HttpRequest Request => Context.Request;

    public int Status => Context.Response.StatusCode;

    public IHeaderDictionary ResponseHeaders => Context.Response.Headers;

    public string Body { get; private set; } = string.Empty;

    public JObject Json => JObject.Parse(Body);

    public static HttpExchange Post(byte[] body, string? contentType = "application/json", string? query = null)
    {
        var context = new DefaultHttpContext();
        context.Request.Method = HttpMethods.Post;
        context.Request.Path = "/api/test";
        context.Request.Body = new MemoryStream(body, writable: false);
        context.Request.ContentLength = body.Length;
        context.Request.ContentType = contentType;
        if (query is not null)
        {
            context.Request.QueryString = new QueryString(query);
        }

        context.Response.Body = new MemoryStream();
        return new HttpExchange(context);
    }

    /// <summary>Executes the function's result as the host would and captures the response.</summary>
    public async Task ExecuteAsync(IActionResult result)
    {
        await result.ExecuteResultAsync(new ActionContext(Context, new RouteData(), new ActionDescriptor()));
        var stream = (MemoryStream)Context.Response.Body;
        Body = System.Text.Encoding.UTF8.GetString(stream.ToArray());
    }
}
