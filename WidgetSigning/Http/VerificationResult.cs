using WidgetSigning.Signing;
using Microsoft.AspNetCore.Mvc;

namespace WidgetSigning.Http;

/// <summary>
/// The 200 response of <c>/api/verify</c>: <c>{"valid":…,"keyId":…,"algorithm":"HMACSHA256"}</c>, plus
/// <c>"reason"</c> (<c>signature-mismatch</c>, <c>unknown-key-id</c>, <c>timestamp-too-old</c> or <c>timestamp-in-future</c>) when not valid.
/// </summary>
internal sealed class VerificationResult : IActionResult
{
    /// <summary>Creates the result.</summary>
    public VerificationResult(VerificationOutcome outcome, Keys.ReceiverId receiver)
    {
        Outcome = outcome;
        Receiver = receiver;
    }

    /// <summary>The verifier's answer.</summary>
    public VerificationOutcome Outcome { get; }

    /// <summary>The receiver whose keys were checked.</summary>
    public Keys.ReceiverId Receiver { get; }

    /// <summary>The <c>reason</c> value for a failure.</summary>
    public static string ReasonText(VerificationFailure failure) => failure switch
    {
        VerificationFailure.SignatureMismatch => "signature-mismatch",
        VerificationFailure.UnknownKeyId => "unknown-key-id",
        VerificationFailure.TimestampTooOld => "timestamp-too-old",
        VerificationFailure.TimestampInFuture => "timestamp-in-future",
        _ => "none",
    };

    /// <summary>What a reason means, for the receiver checked.</summary>
    public static string Detail(VerificationFailure failure, Keys.ReceiverId receiver) => failure switch
    {
        VerificationFailure.SignatureMismatch => $"No key of receiver '{receiver}' matches: the envelope was changed, or it was signed for another receiver or with a key no longer accepted.",
        VerificationFailure.UnknownKeyId => $"Receiver '{receiver}' has no accepted key with that id.",
        VerificationFailure.TimestampTooOld => "The webhook-timestamp is older than the tolerance allows.",
        VerificationFailure.TimestampInFuture => "The webhook-timestamp is further in the future than the tolerance allows.",
        _ => string.Empty,
    };

    /// <inheritdoc />
    public Task ExecuteResultAsync(ActionContext context)
    {
        return SmallJson.WriteNoStoreAsync(context, json =>
        {
            json.WriteStartObject();
            json.WritePropertyName("valid");
            json.WriteValue(Outcome.IsValid);
            json.WritePropertyName("receiver");
            json.WriteValue(Receiver.Value);
            json.WritePropertyName("keyId");
            json.WriteValue(Outcome.KeyId);
            json.WritePropertyName("algorithm");
            json.WriteValue(Outcome.Algorithm);
            if (!Outcome.IsValid)
            {
                json.WritePropertyName("reason");
                json.WriteValue(ReasonText(Outcome.Failure));
                json.WritePropertyName("detail");
                json.WriteValue(Detail(Outcome.Failure, Receiver));
            }

            json.WriteEndObject();
        });
    }
}
