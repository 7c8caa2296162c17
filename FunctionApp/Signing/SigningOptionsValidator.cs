using Microsoft.Extensions.Options;

namespace FunctionApp.Signing;

/// <summary>Validates <see cref="SigningOptions"/> once, naming the setting that is wrong.</summary>
internal sealed class SigningOptionsValidator : IValidateOptions<SigningOptions>
{
    public ValidateOptionsResult Validate(string? name, SigningOptions options) =>
        options.MaxRequestBodyBytes is > 0 and <= int.MaxValue
            ? ValidateOptionsResult.Success
            : ValidateOptionsResult.Fail(
                $"{SigningOptions.SectionName}:{nameof(options.MaxRequestBodyBytes)} must be between 1 and {int.MaxValue}; it is {options.MaxRequestBodyBytes}.");
}
