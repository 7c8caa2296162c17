using Microsoft.AspNetCore.Http;
using WidgetSigning.Keys;
using WidgetSigning.Primitives;
using WidgetSigning.Signing;

namespace WidgetSigning.Http;

/// <summary>The query parameters of <c>/api/sign</c>, <c>/api/verify</c> and <c>/api/keys</c>, parsed and checked: each a 400 naming it when invalid.</summary>
internal static class QueryParameters
{
    /// <summary>The query parameter that selects the response body.</summary>
    public const string OutputParameter = "output";

    /// <summary>True for <c>?output=canonical</c>, false for no parameter or <c>?output=signature</c>.</summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.InvalidRequest"/>: the parameter has another value.</exception>
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
                _ => throw Problems.InvalidRequest($"Query parameter '{OutputParameter}' must be 'signature' or 'canonical'."),
            }
            : throw Problems.InvalidRequest($"Query parameter '{OutputParameter}' must be given once, as 'signature' or 'canonical'.");
    }

    /// <summary>The query parameter that selects the signature forms made.</summary>
    public const string FormsParameter = "forms";

    /// <summary>
    /// The forms to make: <c>?forms=plain</c>, <c>webhook</c> or <c>both</c>, or <paramref name="allowed"/> (the
    /// deployment's <c>Http:SignatureForms</c>) without the parameter. Checked before the body is read.
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.InvalidRequest"/>: the parameter is repeated, has another value, or asks for a form <paramref name="allowed"/> leaves out.</exception>
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
            throw Problems.InvalidRequest($"Query parameter '{FormsParameter}' must be given once, as {SignatureFormNames.Rule}.");
        }

        return asked.IsWithin(allowed)
            ? asked
            : throw Problems.InvalidRequest(
                $"Query parameter '{FormsParameter}' asks for '{SignatureFormNames.NameOf(asked)}', but this deployment makes only '{SignatureFormNames.NameOf(allowed)}' (setting {HttpOptions.SignatureFormsSetting}).");
    }

    /// <summary>The query parameter naming a receiver; it may repeat on <c>/api/sign</c>.</summary>
    public const string ReceiverParameter = "receiver";

    /// <summary>
    /// The receivers <c>?receiver=</c> names, in order: each a valid id (<see cref="ReceiverId.Rule"/>), none twice, at most
    /// <see cref="ReceiverOptions.MaxPerRequest"/>; without the parameter, the default receiver.
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.InvalidRequest"/>: a malformed or repeated id, too many, or none where there is no default receiver.</exception>
    public static IReadOnlyList<ReceiverId> Receivers(HttpRequest request, ReceiverOptions options)
    {
        ArgumentNullException.ThrowIfNull(request);
        ArgumentNullException.ThrowIfNull(options);
        if (!request.Query.TryGetValue(ReceiverParameter, out var values) || values.Count == 0)
        {
            return options.Default is { } fallback
                ? [fallback]
                : throw Problems.InvalidRequest(
                    $"Query parameter '{ReceiverParameter}' is required: name the receiver to sign for (?{ReceiverParameter}=<id>). This deployment has no default receiver (setting {ReceiverOptions.SectionName}:{nameof(ReceiverOptions.DefaultReceiver)}).");
        }

        if (values.Count > options.MaxPerRequest)
        {
            throw Problems.InvalidRequest(
                $"Query parameter '{ReceiverParameter}' names {values.Count} receivers; at most {options.MaxPerRequest} are signed for in one request (setting {ReceiverOptions.SectionName}:{nameof(ReceiverOptions.MaxPerRequest)}).");
        }

        var receivers = new ReceiverId[values.Count];
        for (var i = 0; i < receivers.Length; i++)
        {
            receivers[i] = Parse(values[i]);
            for (var j = 0; j < i; j++)
            {
                if (receivers[j] == receivers[i])
                {
                    throw Problems.InvalidRequest($"Query parameter '{ReceiverParameter}' names receiver '{receivers[i]}' twice.");
                }
            }
        }

        return receivers;
    }

    /// <summary>The one receiver <c>?receiver=</c> names (given at most once), or the default receiver.</summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.InvalidRequest"/>: a malformed id, the parameter repeated, or none where there is no default receiver.</exception>
    public static ReceiverId Receiver(HttpRequest request, ReceiverOptions options)
    {
        ArgumentNullException.ThrowIfNull(request);
        if (request.Query.TryGetValue(ReceiverParameter, out var values) && values.Count > 1)
        {
            throw Problems.InvalidRequest($"Query parameter '{ReceiverParameter}' must be given once here.");
        }

        return Receivers(request, options)[0];
    }

    private static ReceiverId Parse(string? value) =>
        ReceiverId.TryParse(value, out var receiver)
            ? receiver
            : throw Problems.InvalidRequest($"Query parameter '{ReceiverParameter}' value '{EchoText.Of(value)}' is not a receiver id: a receiver id is {ReceiverId.Rule}.");
}
