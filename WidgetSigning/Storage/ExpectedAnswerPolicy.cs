using System.Diagnostics;
using Azure.Core;
using Azure.Core.Pipeline;

namespace WidgetSigning.Storage;

/// <summary>
/// A per-call policy of the blob clients: under <see cref="ExpectedAnswers.Expect"/>, the error codes named are not
/// errors for that message's classifier (Azure.Core's HTTP span reads it), and the SDK's client-method span that met
/// one is marked with it (<see cref="ExpectedAnswers.MarkProperty"/>). Written here because the storage SDK's
/// convenience methods take no per-call classifier (RequestContext).
/// </summary>
internal sealed class ExpectedAnswerPolicy : HttpPipelinePolicy
{
    private const string ErrorCodeHeader = "x-ms-error-code";

    /// <inheritdoc />
    public override void Process(HttpMessage message, ReadOnlyMemory<HttpPipelinePolicy> pipeline)
    {
        var codes = Apply(message);
        ProcessNext(message, pipeline);
        Mark(message, codes);
    }

    /// <inheritdoc />
    public override async ValueTask ProcessAsync(HttpMessage message, ReadOnlyMemory<HttpPipelinePolicy> pipeline)
    {
        var codes = Apply(message);
        await ProcessNextAsync(message, pipeline).ConfigureAwait(false);
        Mark(message, codes);
    }

    private static string[]? Apply(HttpMessage message)
    {
        var codes = ExpectedAnswers.Codes;
        if (codes is not null)
        {
            // Wrapped, not replaced: Storage's own classifier (its retry rules) still decides the rest.
            message.ResponseClassifier = new Classifier(message.ResponseClassifier, codes);
        }

        return codes;
    }

    private static void Mark(HttpMessage message, string[]? codes)
    {
        if (codes is not null && message.HasResponse && ExpectedCode(message, codes) is { } code &&
            Activity.Current is { } span && span.Source.Name.StartsWith("Azure.", StringComparison.Ordinal))
        {
            span.SetCustomProperty(ExpectedAnswers.MarkProperty, code);
        }
    }

    private static string? ExpectedCode(HttpMessage message, string[] codes) =>
        message.Response.Headers.TryGetValue(ErrorCodeHeader, out var code) && Array.IndexOf(codes, code) >= 0 ? code : null;

    private sealed class Classifier(ResponseClassifier inner, string[] codes) : ResponseClassifier
    {
        public override bool IsErrorResponse(HttpMessage message) => ExpectedCode(message, codes) is null && inner.IsErrorResponse(message);

        public override bool IsRetriableResponse(HttpMessage message) => inner.IsRetriableResponse(message);

        public override bool IsRetriableException(Exception exception) => inner.IsRetriableException(exception);

        public override bool IsRetriable(HttpMessage message, Exception exception) => inner.IsRetriable(message, exception);
    }
}
