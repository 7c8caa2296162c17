using Microsoft.AspNetCore.Http;
using WidgetSigning.Signing;

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

    /// <summary>The query parameter that selects the signature forms made.</summary>
    public const string FormsParameter = "forms";

    /// <summary>
    /// The forms to make: <c>?forms=plain</c>, <c>webhook</c> or <c>both</c>, or <paramref name="allowed"/> (the
    /// deployment's <c>Http:SignatureForms</c>) without the parameter. Checked before the body is read.
    /// </summary>
    /// <exception cref="InvalidRequestException">The parameter is repeated, has another value, or asks for a form <paramref name="allowed"/> leaves out.</exception>
    public static SignatureForms Forms(HttpRequest request, SignatureForms allowed)
    {
        ArgumentNullException.ThrowIfNull(request);
        if (!request.Query.TryGetValue(FormsParameter, out var values))
        {
            return allowed;
        }

        // The client's value is not echoed: the accepted ones say all there is to say.
        if (values.Count != 1 || !SignatureFormNames.TryParse(values[0], out var asked))
        {
            throw new InvalidRequestException($"Query parameter '{FormsParameter}' must be given once, as {SignatureFormNames.Rule}.");
        }

        return asked.IsWithin(allowed)
            ? asked
            : throw new InvalidRequestException(
                $"Query parameter '{FormsParameter}' asks for '{SignatureFormNames.NameOf(asked)}', but this deployment makes only '{SignatureFormNames.NameOf(allowed)}' (setting {HttpOptions.SignatureFormsSetting}).");
    }
}
