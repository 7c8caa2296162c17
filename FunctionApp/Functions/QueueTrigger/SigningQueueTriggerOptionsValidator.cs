using Microsoft.Extensions.Options;

namespace FunctionApp.Functions.QueueTrigger;

/// <summary>Validates <see cref="SigningQueueTriggerOptions"/> once, naming the host.json setting that is wrong.</summary>
internal sealed class SigningQueueTriggerOptionsValidator : IValidateOptions<SigningQueueTriggerOptions>
{
    private const string Prefix = "host.json extensions." + SigningQueueTriggerOptions.ExtensionName + ".";

    public ValidateOptionsResult Validate(string? name, SigningQueueTriggerOptions options)
    {
        var failures = new List<string>();
        if (options.BatchSize is < 1 or > SigningQueueTriggerOptions.MaxBatchSize)
        {
            failures.Add($"{Prefix}batchSize must be between 1 and {SigningQueueTriggerOptions.MaxBatchSize}; it is {options.BatchSize}.");
        }

        if (options.NewBatchThreshold < -1)
        {
            failures.Add($"{Prefix}newBatchThreshold must be 0 or more (or -1 for half of batchSize); it is {options.NewBatchThreshold}.");
        }

        if (options.MaxDequeueCount < 1)
        {
            failures.Add($"{Prefix}maxDequeueCount must be at least 1; it is {options.MaxDequeueCount}.");
        }

        if (options.VisibilityTimeout < TimeSpan.Zero || options.VisibilityTimeout > TimeSpan.FromDays(7))
        {
            failures.Add($"{Prefix}visibilityTimeout must be between 00:00:00 and 7.00:00:00; it is {options.VisibilityTimeout}.");
        }

        if (options.MaxPollingInterval < TimeSpan.FromMilliseconds(100))
        {
            failures.Add($"{Prefix}maxPollingInterval must be at least 00:00:00.1; it is {options.MaxPollingInterval}.");
        }

        if (options.MessageLease < TimeSpan.FromSeconds(1) || options.MessageLease > TimeSpan.FromDays(7))
        {
            failures.Add($"{Prefix}messageLease must be between 00:00:01 and 7.00:00:00; it is {options.MessageLease}.");
        }

        if (!Enum.IsDefined(options.MessageEncoding))
        {
            failures.Add($"{Prefix}messageEncoding must be 'base64' or 'none'.");
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }
}
