using FunctionApp.Keys;
using FunctionApp.Signing;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Microsoft.IO;

namespace FunctionApp.Benchmarks.Infrastructure;

/// <summary>Our signer as the service wires it: default <see cref="StreamPoolOptions"/>, one pool.</summary>
public static class SignerFactory
{
    /// <summary>Creates a signer over a new pool built exactly as production builds it.</summary>
    public static EnvelopeSigner Create(out RecyclableMemoryStreamManager streams)
    {
        streams = StreamPoolFactory.Create(new StreamPoolOptions(), NullLogger.Instance);
        var keys = new ConfigurationSigningKeySource(Options.Create(new LocalKeyOptions { LocalKey = Convert.ToBase64String(BenchmarkData.KeyBytes) }));
        return new EnvelopeSigner(streams, keys, NullLogger<EnvelopeSigner>.Instance);
    }
}
