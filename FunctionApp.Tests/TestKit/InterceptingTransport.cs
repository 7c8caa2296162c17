using Azure.Core;
using Azure.Core.Pipeline;

namespace FunctionApp.Tests.TestKit;

/// <summary>The real HTTP transport, with a hook that sees (and may alter or fail) every request before it is sent.</summary>
public sealed class InterceptingTransport(Action<HttpMessage> beforeSend) : HttpPipelineTransport
{
    private readonly HttpClientTransport _inner = new();

    public override Request CreateRequest() => _inner.CreateRequest();

    public override void Process(HttpMessage message)
    {
        beforeSend(message);
        _inner.Process(message);
    }

    public override ValueTask ProcessAsync(HttpMessage message)
    {
        beforeSend(message);
        return _inner.ProcessAsync(message);
    }
}
