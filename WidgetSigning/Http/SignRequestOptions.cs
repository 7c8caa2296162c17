using Microsoft.AspNetCore.Http;

namespace WidgetSigning.Http;

/// <summary>The query options of <c>/api/sign</c>.</summary>
public static class SignRequestOptions
{
    /// <summary>The query parameter that selects the response body.</summary>
    public const string OutputParameter = "output";

    /// <summary>True for <c>?output=canonical</c>, false for no parameter or <c>?output=signature</c>.</summary>
    /// <exception cref="InvalidRequestException">The parameter has another value.</exception>
    public static bool WantsCanonicalBody(HttpRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        if (!request.Query.TryGetValue(OutputParameter, out var values))
        {
            return false;
        }

        return values.Count == 1 && values[0] is { } value
            ? value switch
            {
                "canonical" => true,
                "signature" => false,
                _ => throw new InvalidRequestException($"Query parameter '{OutputParameter}' must be 'signature' or 'canonical'."),
            }
            : throw new InvalidRequestException($"Query parameter '{OutputParameter}' must be given once, as 'signature' or 'canonical'.");
    }
}
