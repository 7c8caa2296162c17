using WidgetSigning.Signing;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;

namespace WidgetSigning.Http;

/// <summary>
/// The 200 response of <c>/api/verify</c>: <c>{"valid":…,"keyId":…,"algorithm":"HMACSHA256"}</c>, plus
/// <c>"reason"</c> (<c>signature-mismatch</c>, <c>unknown-key-id</c>, <c>timestamp-too-old</c> or <c>timestamp-in-future</c>) when not valid.
/// </summary>
public sealed class VerificationResult : IActionResult
{
    /// <summary>Creates the result.</summary>
    public VerificationResult(VerificationOutcome outcome) => Outcome = outcome;

    /// <summary>The verifier's answer.</summary>
    public VerificationOutcome Outcome { get; }

    /// <summary>The <c>reason</c> value for a failure.</summary>
    public static string ReasonText(VerificationFailure failure) => failure switch
    {
        VerificationFailure.SignatureMismatch => "signature-mismatch",
        VerificationFailure.UnknownKeyId => "unknown-key-id",
        VerificationFailure.TimestampTooOld => "timestamp-too-old",
        VerificationFailure.TimestampInFuture => "timestamp-in-future",
        _ => "none",
    };

    /// <inheritdoc />
    public Task ExecuteResultAsync(ActionContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var response = context.HttpContext.Response;
        response.Headers.CacheControl = "no-store";
        return SmallJson.WriteAsync(response, StatusCodes.Status200OK, "application/json; charset=utf-8", json =>
        {
            json.WriteStartObject();
            json.WritePropertyName("valid");
            json.WriteValue(Outcome.IsValid);
            json.WritePropertyName("keyId");
            json.WriteValue(Outcome.KeyId);
            json.WritePropertyName("algorithm");
            json.WriteValue(Outcome.Algorithm);
            if (!Outcome.IsValid)
            {
                json.WritePropertyName("reason");
                json.WriteValue(ReasonText(Outcome.Failure));
            }

            json.WriteEndObject();
        }, context.HttpContext.RequestAborted);
    }
}
