using WidgetSigning.Envelopes;
using WidgetSigning.Keys;
using WidgetSigning.SpareCores;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace WidgetSigning.Signing;

/// <summary>
/// Registers the host-independent signing core; both hosts' start-up (<c>Startup</c>, <c>Program</c>) call it.
/// </summary>
public static class SigningServiceCollectionExtensions
{
    /// <summary>
    /// Adds options, the one stream pool, the memory budget, the spare-core policy, the envelope reader, the signer, the
    /// verifier and the key source.
    /// </summary>
    public static IServiceCollection AddWidgetSigning(this IServiceCollection services, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);

        const string Pool = StreamPoolOptions.SectionName + ":";
        services.AddOptions<StreamPoolOptions>()
            .Bind(configuration.GetSection(StreamPoolOptions.SectionName))
            .ValidateDataAnnotations()
            // Hand-written: rules across two settings, which attributes on one property cannot express.
            .Validate(
                o => o.MaximumBufferSize >= o.LargeBufferMultiple && o.MaximumBufferSize % Math.Max(o.LargeBufferMultiple, 1) == 0,
                $"{Pool}{nameof(StreamPoolOptions.MaximumBufferSize)} must be a multiple of {Pool}{nameof(StreamPoolOptions.LargeBufferMultiple)}.")
            .Validate(
                o => o.MaximumStreamCapacity >= o.BlockSize,
                $"{Pool}{nameof(StreamPoolOptions.MaximumStreamCapacity)} must be at least one block ({Pool}{nameof(StreamPoolOptions.BlockSize)}).")
            .ValidateOnStart();

        // Range attributes whose messages name the setting; the [OptionsValidator] generator (8.0) ignores ErrorMessage
        // and would name the property instead.
        services.AddOptions<WebhookOptions>().Bind(configuration.GetSection(WebhookOptions.SectionName)).ValidateDataAnnotations().ValidateOnStart();
        services.AddOptions<EnvelopeOptions>().Bind(configuration.GetSection(EnvelopeOptions.SectionName)).ValidateDataAnnotations().ValidateOnStart();

        services.TryAddSingleton(provider => StreamPoolFactory.Create(
            provider.GetRequiredService<IOptions<StreamPoolOptions>>().Value,
            provider.GetRequiredService<ILoggerFactory>().CreateLogger("WidgetSigning.StreamPool")));
        services.AddOptions<MemoryBudgetOptions>()
            .Bind(configuration.GetSection(MemoryBudgetOptions.SectionName))
            .ValidateDataAnnotations()
            .Validate(
                o => o.MaxBytesInFlight is 0 or >= MemoryBudgetOptions.MinBytesInFlight,
                $"{MemoryBudgetOptions.MaxBytesInFlightSetting} must be 0 (an eighth of the memory) or at least {MemoryBudgetOptions.MinBytesInFlight} bytes.")
            .ValidateOnStart();
        services.TryAddSingleton(provider => CreateBudget(
            provider.GetRequiredService<IOptions<MemoryBudgetOptions>>().Value,
            provider.GetRequiredService<ILoggerFactory>().CreateLogger("WidgetSigning.MemoryBudget")));
        // One policy per process: it counts every signature in flight, whichever host path started it.
        services.AddOptions<SpareCoreOptions>().Bind(configuration.GetSection(SpareCoreOptions.SectionName)).ValidateDataAnnotations().ValidateOnStart();
        services.TryAddSingleton<SpareCorePolicy>();
        services.TryAddSingleton<CanonicalPass>();
        services.TryAddSingleton(provider => new WidgetEnvelopeReader(provider.GetRequiredService<IOptions<EnvelopeOptions>>().Value));
        services.TryAddSingleton<EnvelopeSigner>();
        services.TryAddSingleton<EnvelopeVerifier>();
        services.AddSigningKeySource(configuration);
        return services;
    }

    private static EnvelopeMemoryBudget CreateBudget(MemoryBudgetOptions options, ILogger logger)
    {
        // TotalAvailableMemoryBytes is the container's or job object's limit where there is one (the plan's memory), else
        // the machine's.
        var derived = options.MaxBytesInFlight == 0;
        var capacity = derived ? EnvelopeMemoryBudget.DefaultFor(GC.GetGCMemoryInfo().TotalAvailableMemoryBytes) : options.MaxBytesInFlight;
        SigningLog.BudgetConfigured(logger, capacity, derived ? "an eighth of the available memory" : "configured", MemoryBudgetOptions.MaxBytesInFlightSetting);
        return new EnvelopeMemoryBudget(capacity, options.MaxWait, logger);
    }
}
