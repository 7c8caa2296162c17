using WidgetSigning.Signing;
using Microsoft.Extensions.Options;

namespace WidgetSigning.Http;

/// <summary>
/// The body limit must leave room for the canonical form in one pooled stream: a raw control character (1 byte) is
/// written as <c>\u00XX</c> (6 bytes), so the canonical bytes can be 6 times the body. Without this, a hostile body
/// under the limit could fill the stream past <c>StreamPool:MaximumStreamCapacity</c> and fail as a server error.
/// Hand-written because it compares two options types, which attributes cannot.
/// </summary>
internal sealed class HttpBodyCapacityValidator : IValidateOptions<HttpOptions>
{
    /// <summary>The most the canonical form can grow over the body it came from.</summary>
    public const int WorstCaseGrowth = 6;

    private readonly IOptions<StreamPoolOptions> _pool;

    public HttpBodyCapacityValidator(IOptions<StreamPoolOptions> pool) => _pool = pool;

    public ValidateOptionsResult Validate(string? name, HttpOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var capacity = _pool.Value.MaximumStreamCapacity;
        return (long)options.MaxRequestBodyBytes * WorstCaseGrowth <= capacity
            ? ValidateOptionsResult.Success
            : ValidateOptionsResult.Fail(
                $"{HttpOptions.MaxRequestBodyBytesSetting} ({options.MaxRequestBodyBytes}) times {WorstCaseGrowth}, the worst-case growth of the canonical form, " +
                $"exceeds {StreamPoolOptions.SectionName}:{nameof(StreamPoolOptions.MaximumStreamCapacity)} ({capacity}); lower the first or raise the second.");
    }
}
