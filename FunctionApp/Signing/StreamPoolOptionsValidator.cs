using Microsoft.Extensions.Options;

namespace FunctionApp.Signing;

/// <summary>Validates <see cref="StreamPoolOptions"/> once, naming the setting that is wrong.</summary>
internal sealed class StreamPoolOptionsValidator : IValidateOptions<StreamPoolOptions>
{
    public ValidateOptionsResult Validate(string? name, StreamPoolOptions options)
    {
        var failures = new List<string>();
        const string Prefix = StreamPoolOptions.SectionName + ":";
        if (options.BlockSize is < 4096 or >= 85_000)
        {
            failures.Add($"{Prefix}{nameof(options.BlockSize)} must be between 4096 and 84999 bytes (below the large-object threshold); it is {options.BlockSize}.");
        }

        if (options.LargeBufferMultiple <= 0)
        {
            failures.Add($"{Prefix}{nameof(options.LargeBufferMultiple)} must be positive; it is {options.LargeBufferMultiple}.");
        }
        else if (options.MaximumBufferSize < options.LargeBufferMultiple || options.MaximumBufferSize % options.LargeBufferMultiple != 0)
        {
            failures.Add($"{Prefix}{nameof(options.MaximumBufferSize)} must be a multiple of {Prefix}{nameof(options.LargeBufferMultiple)}; it is {options.MaximumBufferSize}.");
        }

        if (options.MaximumSmallPoolFreeBytes <= 0)
        {
            failures.Add($"{Prefix}{nameof(options.MaximumSmallPoolFreeBytes)} must be positive so the pool is bounded; it is {options.MaximumSmallPoolFreeBytes}.");
        }

        if (options.MaximumLargePoolFreeBytes <= 0)
        {
            failures.Add($"{Prefix}{nameof(options.MaximumLargePoolFreeBytes)} must be positive so the pool is bounded; it is {options.MaximumLargePoolFreeBytes}.");
        }

        if (options.MaximumStreamCapacity < options.BlockSize)
        {
            failures.Add($"{Prefix}{nameof(options.MaximumStreamCapacity)} must be at least one block; it is {options.MaximumStreamCapacity}.");
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }
}
