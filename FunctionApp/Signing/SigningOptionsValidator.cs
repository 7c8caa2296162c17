using FunctionApp.Keys;
using Microsoft.Extensions.Options;

namespace FunctionApp.Signing;

/// <summary>Validates <see cref="SigningOptions"/> once, naming the setting that is wrong.</summary>
internal sealed class SigningOptionsValidator : IValidateOptions<SigningOptions>
{
    public ValidateOptionsResult Validate(string? name, SigningOptions options)
    {
        var failures = new List<string>();
        if (options.MaxRequestBodyBytes is <= 0 or > int.MaxValue)
        {
            failures.Add($"{SigningOptions.SectionName}:{nameof(options.MaxRequestBodyBytes)} must be between 1 and {int.MaxValue}; it is {options.MaxRequestBodyBytes}.");
        }

        if (!string.IsNullOrWhiteSpace(options.LocalKey))
        {
            // A key that is set must be usable; whether one is required at all depends on the key source.
            try
            {
                _ = ConfigurationSigningKeySource.Parse(options.LocalKey);
            }
            catch (OptionsValidationException ex)
            {
                failures.AddRange(ex.Failures);
            }
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }
}
