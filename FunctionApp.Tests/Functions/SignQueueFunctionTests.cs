using System.Diagnostics;
using System.Security.Cryptography;
using System.Text;
using FunctionApp.Keys;
using Microsoft.Azure.Storage.Blob;
using FunctionApp.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;
using Newtonsoft.Json.Linq;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Functions;

/// <summary>The queue function in the real WebJobs SDK host, listening to Azurite.</summary>
[Collection(AzuriteCollection.Name)]
public sealed class SignQueueFunctionTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    private readonly AzuriteFixture _azurite;
    private readonly ITestOutputHelper _output;

    public SignQueueFunctionTests(AzuriteFixture azurite, ITestOutputHelper output)
    {
        _azurite = azurite;
        _output = output;
    }

    [Fact]
    public async Task RunAsync_InlineVectors_ForwardTheirKnownSignaturesAndCanonicalBytes()
    {
        // Arrange
        await using var host = await QueueFunctionHost.StartAsync(_azurite, _output);
        var vectors = Vector.All().Where(v => !v.Reject && v.Input.Length < 40 * 1024).ToList();
        var sent = new Dictionary<string, Vector>();

        // Act
        foreach (var vector in vectors)
        {
            sent.Add(await host.EnqueueAsync(vector.Input), vector);
        }

        var outputs = await QueueFunctionHost.ReceiveAsync(host.Output, sent.Count, Patience);

        // Assert
        Assert.Equal(sent.Count, outputs.Count);
        foreach (var output in outputs)
        {
            var vector = sent[output.Value<string>("messageId")!];
            Assert.Equal(vector.SignatureHex, output.Value<string>("signature"));
            Assert.Equal(vector.Algorithm, output.Value<string>("algorithm"));
            Assert.Equal(ConfigurationSigningKeySource.LocalKeyId, output.Value<string>("keyId"));
            Assert.Equal(vector.WidgetCount, output.Value<int>("widgetCount"));
            Assert.Equal(vector.CanonicalLength, output.Value<long>("canonicalLength"));
            Assert.Equal(vector.Canonical, Convert.FromBase64String(output.Value<string>("canonicalBase64")!));
            Assert.Null(output["canonicalBlob"]);
        }

        Assert.True(await QueueFunctionHost.WaitEmptyAsync(host.Input, Patience), "the input queue should be empty");
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Rejected));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Poison));
    }

    [Fact]
    public async Task RunAsync_SeedEnvelopeByClaimCheck_ForwardsSignatureAndCanonicalBlob()
    {
        // Arrange
        await using var host = await QueueFunctionHost.StartAsync(_azurite, _output);
        var seed = Vector.Load("seed-3000-widgets");
        Assert.True(seed.Input.Length > 900_000, "the seed envelope is the ~1 MB case");

        // Act
        var id = await host.EnqueueClaimCheckAsync("incoming/seed.json", seed.Input);
        var output = Assert.Single(await QueueFunctionHost.ReceiveAsync(host.Output, 1, Patience));

        // Assert
        Assert.Equal(id, output.Value<string>("messageId"));
        Assert.Equal(seed.SignatureHex, output.Value<string>("signature"));
        Assert.Equal(seed.WidgetCount, output.Value<int>("widgetCount"));
        Assert.Equal(seed.CanonicalLength, output.Value<long>("canonicalLength"));
        Assert.Null(output["canonicalBase64"]);
        Assert.Equal(host.Claims.Name, output["claimCheck"]!.Value<string>("container"));
        Assert.Equal("incoming/seed.json", output["claimCheck"]!.Value<string>("blob"));

        var reference = output["canonicalBlob"]!;
        Assert.Equal(host.Canonical.Name, reference.Value<string>("container"));
        var canonical = await DownloadAsync(host, reference);
        Assert.Equal(seed.Canonical, canonical);
        Assert.Equal(seed.SignatureHex, Hmac(canonical));
        Assert.True(await QueueFunctionHost.WaitEmptyAsync(host.Input, Patience), "the input queue should be empty");
    }

    [Fact]
    public async Task RunAsync_MalformedAndInvalidMessages_LandOnTheRejectedQueueWithTheirReasons()
    {
        // Arrange
        await using var host = await QueueFunctionHost.StartAsync(_azurite, _output);
        var notJson = Vector.Load("not-json").Input;
        var missingProperty = Vector.Load("missing-property").Input;

        // Act
        var cases = new Dictionary<string, (string Path, string ReasonFragment, byte[]? Body)>
        {
            [await host.EnqueueAsync(notJson)] = ("$", "not valid JSON", notJson),
            [await host.EnqueueAsync(missingProperty)] = ("$.widgets[0]", "lacks required member", missingProperty),
            [await host.EnqueueRawAsync("this is not base64!")] = ("$", "not valid base64", Encoding.UTF8.GetBytes("this is not base64!")),
            [await host.EnqueueAsync("{\"claimCheck\":{\"container\":\"elsewhere\",\"blob\":\"x.json\"}}"u8.ToArray())] = ("$.claimCheck.container", "only point into", null),
            [await host.EnqueueClaimCheckAsync("missing.json", envelope: null)] = ("$.claimCheck.blob", "does not exist", null),
            [await host.EnqueueClaimCheckAsync("bad.json", missingProperty)] = ("$.widgets[0]", "lacks required member", null),
        };
        var rejected = await QueueFunctionHost.ReceiveAsync(host.Rejected, cases.Count, Patience);

        // Assert
        Assert.Equal(cases.Count, rejected.Count);
        foreach (var message in rejected)
        {
            var id = message.Value<string>("messageId")!;
            var (path, reason, body) = cases[id];
            Assert.Equal(path, message.Value<string>("jsonPath"));
            Assert.Contains(reason, message.Value<string>("reason"), StringComparison.Ordinal);
            Assert.Equal(1, message.Value<int>("dequeueCount"));
            if (body is not null)
            {
                // The inline body is kept, byte for byte: nothing the producer sent is lost.
                Assert.Equal(body, await DownloadAsync(host, message["body"]!));
            }
            else
            {
                Assert.NotNull(message["claimCheck"] ?? message["body"]);
            }
        }

        Assert.True(await QueueFunctionHost.WaitEmptyAsync(host.Input, Patience), "the input queue should be empty");
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Output));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Poison));
    }

    [Fact]
    public async Task RunAsync_BurstOf200MixedMessages_ForwardsExactly200CorrectResults()
    {
        // Arrange
        await using var host = await QueueFunctionHost.StartAsync(_azurite, _output);
        var vectors = Vector.All().Where(v => !v.Reject).ToList();
        var small = vectors.Where(v => v.Input.Length < 40 * 1024).ToList();
        var seed = vectors.Single(v => v.Name == "seed-3000-widgets");
        var expected = vectors.ToDictionary(v => v.Name, v => Hmac(v.Canonical));
        foreach (var vector in vectors)
        {
            Assert.Equal(vector.SignatureHex, expected[vector.Name]);
            await host.Claims.GetBlockBlobReference(vector.Name + ".json").UploadFromByteArrayAsync(vector.Input, 0, vector.Input.Length);
        }

        // Every 4th message is a claim check (every 20th the 1 MB seed); the rest are inline envelopes.
        var plan = Enumerable.Range(0, 200).Select(i => (ClaimCheck: i % 4 == 0, Vector: i % 20 == 0 ? seed : small[i % small.Count])).ToList();

        // Act
        var clock = Stopwatch.StartNew();
        var ids = await Task.WhenAll(plan.Select(p => p.ClaimCheck
            ? host.EnqueueClaimCheckAsync(p.Vector.Name + ".json", envelope: null)
            : host.EnqueueAsync(p.Vector.Input)));
        var enqueued = clock.Elapsed;
        var outputs = await QueueFunctionHost.ReceiveAsync(host.Output, plan.Count, TimeSpan.FromMinutes(3));
        var elapsed = clock.Elapsed;

        // Anything arriving after the 200th output would be a duplicate (or a stray): give it time to show up.
        outputs.AddRange(await QueueFunctionHost.ReceiveAsync(host.Output, 1, TimeSpan.FromSeconds(3)));
        var distinct = outputs.Select(o => o.Value<string>("messageId")!).Distinct(StringComparer.Ordinal).Count(ids.Contains);
        var lost = plan.Count - distinct;
        var duplicates = outputs.Count - distinct;

        // Assert
        _output.WriteLine($"Burst: {plan.Count} messages ({plan.Count(p => p.ClaimCheck)} by claim check, {plan.Count(p => p.Vector == seed)} of ~1 MB) " +
            $"enqueued in {enqueued.TotalSeconds:F2} s, all signed and forwarded after {elapsed.TotalSeconds:F2} s wall time: {plan.Count / elapsed.TotalSeconds:F1} messages/s; " +
            $"lost {lost}, duplicate outputs {duplicates}; load average {LoadAverage()}.");
        Assert.Equal(0, lost);
        Assert.Equal(0, duplicates);
        var byId = outputs.ToDictionary(o => o.Value<string>("messageId")!);
        Assert.Equal(plan.Count, byId.Count);
        for (var i = 0; i < plan.Count; i++)
        {
            var output = byId[ids[i]];
            Assert.Equal(expected[plan[i].Vector.Name], output.Value<string>("signature"));
            Assert.Equal(plan[i].Vector.CanonicalLength, output.Value<long>("canonicalLength"));
            Assert.Equal(plan[i].ClaimCheck, output["claimCheck"] is not null);
        }

        Assert.True(await QueueFunctionHost.WaitEmptyAsync(host.Input, Patience), "the input queue should be empty");
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Rejected));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Poison));
    }

    [Fact]
    public async Task RunAsync_KeySourceFailsTheFirstAttempts_RetriesAndForwardsOneResult()
    {
        // Arrange
        var keys = new FlakyKeySource(failures: 2);
        await using var host = await QueueFunctionHost.StartAsync(
            _azurite,
            _output,
            new Dictionary<string, string?> { ["visibilityTimeout"] = "00:00:01", ["maxDequeueCount"] = "5" },
            services => services.AddSingleton<ISigningKeySource>(keys));
        var vector = Vector.Load("one-widget");

        // Act
        var id = await host.EnqueueAsync(vector.Input);
        var outputs = await QueueFunctionHost.ReceiveAsync(host.Output, 1, Patience);
        Assert.True(await QueueFunctionHost.WaitEmptyAsync(host.Input, Patience), "the input queue should be empty");

        // Anything still to come would be a duplicate: give it time to show up.
        outputs.AddRange(await QueueFunctionHost.ReceiveAsync(host.Output, 1, TimeSpan.FromSeconds(3)));

        // Assert
        var output = Assert.Single(outputs);
        Assert.Equal(id, output.Value<string>("messageId"));
        Assert.Equal(vector.SignatureHex, output.Value<string>("signature"));
        Assert.Equal(3, output.Value<int>("dequeueCount"));
        Assert.Equal(3, keys.Calls);
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Poison));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Rejected));
    }

    [Fact]
    public async Task RunAsync_KeySourceKeepsFailing_MovesTheMessageToPoisonAfterMaxDequeueCount()
    {
        // Arrange
        var keys = new FlakyKeySource(failures: int.MaxValue);
        await using var host = await QueueFunctionHost.StartAsync(
            _azurite,
            _output,
            new Dictionary<string, string?> { ["visibilityTimeout"] = "00:00:00", ["maxDequeueCount"] = "3" },
            services => services.AddSingleton<ISigningKeySource>(keys));
        var body = Vector.Load("one-widget").Input;

        // Act
        await host.EnqueueAsync(body);
        var poisoned = await QueueFunctionHost.ReceiveRawAsync(host.Poison, Patience);

        // Assert
        Assert.Equal(body, Convert.FromBase64String(poisoned!));
        Assert.Equal(3, keys.Calls);
        Assert.True(await QueueFunctionHost.WaitEmptyAsync(host.Input, Patience), "the input queue should be empty");
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Output));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Rejected));
    }

    /// <summary>The 1-minute load average (Linux), to record how busy the shared machine was during a timing.</summary>
    private static string LoadAverage() =>
        File.Exists("/proc/loadavg") ? File.ReadAllText("/proc/loadavg").Split(' ')[0] : "n/a";

    /// <summary>The signature computed independently of the service: plain HMACSHA256 over the canonical bytes.</summary>
    private static string Hmac(byte[] canonical) => Convert.ToHexString(HMACSHA256.HashData(Vector.Key, canonical)).ToLowerInvariant();

    private static async Task<byte[]> DownloadAsync(QueueFunctionHost host, JToken reference)
    {
        var blob = host.Account.CreateCloudBlobClient()
            .GetContainerReference(reference.Value<string>("container"))
            .GetBlockBlobReference(reference.Value<string>("blob"));
        using var buffer = new MemoryStream();
        await blob.DownloadToStreamAsync(buffer);
        return buffer.ToArray();
    }

    /// <summary>A key source that is unavailable for its first calls, as Key Vault is during an outage.</summary>
    private sealed class FlakyKeySource(int failures) : ISigningKeySource
    {
        private readonly SigningKey _key = new(ConfigurationSigningKeySource.LocalKeyId, Vector.Key);
        private int _calls;

        public int Calls => Volatile.Read(ref _calls);

        public ValueTask<SigningKey> GetCurrentKeyAsync(CancellationToken cancellationToken) =>
            Interlocked.Increment(ref _calls) <= failures
                ? throw new SigningKeyUnavailableException("Key Vault is unreachable (test).")
                : ValueTask.FromResult(_key);

        public ValueTask<SigningKey?> FindKeyAsync(string keyId, CancellationToken cancellationToken) => ValueTask.FromResult<SigningKey?>(_key);

        public ValueTask<IReadOnlyList<SigningKey>> GetVerificationKeysAsync(CancellationToken cancellationToken) =>
            ValueTask.FromResult<IReadOnlyList<SigningKey>>([_key]);
    }
}
