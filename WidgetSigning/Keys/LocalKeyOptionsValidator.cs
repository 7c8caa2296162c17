using Microsoft.Extensions.Options;

namespace WidgetSigning.Keys;

/// <summary>
/// A local key that is set must be usable (base64 of at least 32 bytes); whether one is needed at all depends on the key
/// source. Hand-written because the check is a decode, which no validation attribute expresses. Never echoes the value.
/// </summary>
internal sealed class LocalKeyOptionsValidator : IValidateOptions<LocalKeyOptions>
{
    public ValidateOptionsResult Validate(string? name, LocalKeyOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (string.IsNullOrWhiteSpace(options.LocalKey))
        {
            return ValidateOptionsResult.Success;
        }

        try
        {
            _ = ConfigurationSigningKeySource.Parse(options.LocalKey);
            return ValidateOptionsResult.Success;
        }
        catch (OptionsValidationException ex)
        {
            return ValidateOptionsResult.Fail(ex.Failures);
        }
    }
}
