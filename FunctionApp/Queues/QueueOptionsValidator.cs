using System.Text.RegularExpressions;
using Microsoft.Extensions.Options;

namespace FunctionApp.Queues;

/// <summary>Validates <see cref="QueueOptions"/> once, naming the setting that is wrong.</summary>
internal sealed partial class QueueOptionsValidator : IValidateOptions<QueueOptions>
{
    private const string Prefix = QueueOptions.SectionName + ":";

    public ValidateOptionsResult Validate(string? name, QueueOptions options)
    {
        var failures = new List<string>();
        CheckQueue(failures, nameof(options.Input), options.Input);
        CheckQueue(failures, nameof(options.Output), options.Output);
        CheckQueue(failures, nameof(options.Rejected), options.Rejected);
        CheckContainer(failures, nameof(options.ClaimCheckContainer), options.ClaimCheckContainer);
        CheckContainer(failures, nameof(options.CanonicalContainer), options.CanonicalContainer);
        CheckContainer(failures, nameof(options.RejectedContainer), options.RejectedContainer);

        var queues = new[] { options.Input, options.Output, options.Rejected, options.Input + "-poison" };
        if (queues.Distinct(StringComparer.Ordinal).Count() != queues.Length)
        {
            failures.Add($"{Prefix}{nameof(options.Input)}, {nameof(options.Output)} and {nameof(options.Rejected)} (and the input's -poison queue) must be four different queues.");
        }

        if (options.InlineCanonicalMaxBytes is < 0 or > QueueOptions.MaxInlineCanonicalBytes)
        {
            failures.Add($"{Prefix}{nameof(options.InlineCanonicalMaxBytes)} must be between 0 and {QueueOptions.MaxInlineCanonicalBytes} (a queue message carries 64 KiB, about 48 KiB once base64-encoded); it is {options.InlineCanonicalMaxBytes}.");
        }

        if (options.MaxClaimCheckBytes <= 0)
        {
            failures.Add($"{Prefix}{nameof(options.MaxClaimCheckBytes)} must be positive; it is {options.MaxClaimCheckBytes}.");
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }

    private static void CheckQueue(List<string> failures, string key, string? value)
    {
        // Azure's rule: 3-63 characters, lowercase letters, digits and single hyphens, starting and ending alphanumeric.
        // The input queue's name plus "-poison" must fit too; checking every queue against 56 keeps that simple.
        if (value is null || value.Length is < 3 or > 56 || !NamePattern().IsMatch(value))
        {
            failures.Add($"{Prefix}{key} must be a queue name of 3-56 lowercase letters, digits and single hyphens (room for '-poison'); it is '{value}'.");
        }
    }

    private static void CheckContainer(List<string> failures, string key, string? value)
    {
        if (value is null || value.Length is < 3 or > 63 || !NamePattern().IsMatch(value))
        {
            failures.Add($"{Prefix}{key} must be a container name of 3-63 lowercase letters, digits and single hyphens; it is '{value}'.");
        }
    }

    [GeneratedRegex("^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9]))*$", RegexOptions.CultureInvariant)]
    private static partial Regex NamePattern();
}
