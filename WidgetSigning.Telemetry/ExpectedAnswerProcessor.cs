using System.Diagnostics;
using OpenTelemetry;
using WidgetSigning.Storage;

namespace WidgetSigning.Telemetry;

/// <summary>
/// Clears the error of an Azure SDK client-method span whose failure was an answer the call expected: the span carries
/// <see cref="ExpectedAnswers.MarkProperty"/> (set by the blob clients' pipeline when it received that answer) and its
/// <c>error.type</c> is that very error code. Any other failure stays an error.
/// </summary>
internal sealed class ExpectedAnswerProcessor : BaseProcessor<Activity>
{
    private const string ErrorTypeTag = "error.type";

    /// <inheritdoc />
    public override void OnEnd(Activity data)
    {
        if (data.Status == ActivityStatusCode.Error && data.GetCustomProperty(ExpectedAnswers.MarkProperty) is string code &&
            string.Equals(data.GetTagItem(ErrorTypeTag) as string, code, StringComparison.Ordinal))
        {
            data.SetStatus(ActivityStatusCode.Unset);
            data.SetTag(ErrorTypeTag, null);
            data.SetTag(ExpectedAnswers.MarkProperty, code);
        }
    }
}
