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
        var failures = new List<string>();
        if (!string.IsNullOrWhiteSpace(options.LocalKey))
        {
            Check(options.LocalKey, LocalKeyOptions.LocalKeySetting, failures);
        }

        foreach (var (id, value) in options.LocalKeys)
        {
            var setting = $"{LocalKeyOptions.LocalKeysSetting}:{Primitives.EchoText.Of(id)}";
            if (!ReceiverId.TryParse(id, out _))
            {
                failures.Add($"{setting} does not name a receiver: a receiver id is {ReceiverId.Rule}.");
                continue;
            }

            Check(value, setting, failures);
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }

    private static void Check(string value, string setting, List<string> failures)
    {
        try
        {
            _ = LocalKeyOptions.Parse(value, setting);
        }
        catch (OptionsValidationException ex)
        {
            failures.AddRange(ex.Failures);
        }
    }
}
