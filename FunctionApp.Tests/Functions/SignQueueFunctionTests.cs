using System.Collections.Concurrent;
using System.Diagnostics;
using System.Security.Cryptography;
using System.Text;
using WidgetSigning.Storage;
using WidgetSigning.Keys;
using Azure.Core;
using FunctionApp.Functions.QueueTrigger;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using WidgetSigning.Audit;
using Newtonsoft.Json.Linq;
using Xunit.Abstractions;
using WidgetSigning.Primitives;

namespace FunctionApp.Tests.Functions;

/// <summary>The queue function on our trigger in the real WebJobs SDK host, listening to Azurite.</summary>
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
            Assert.Equal(ConfigurationReceiverKeySource.LocalKeyId, output.Value<string>("keyId"));
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
        var canonical = await host.DownloadAsync(reference);
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
                Assert.Equal(body, await host.DownloadAsync(message["body"]!));
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
            await host.Claims.GetBlobClient(vector.Name + ".json").UploadAsync(new BinaryData(vector.Input), overwrite: true);
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
            services => services.AddSingleton<IReceiverKeySource>(keys));
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
            new Dictionary<string, string?> { ["visibilityTimeout"] = "00:00:01", ["maxDequeueCount"] = "3" },
            services => services.AddSingleton<IReceiverKeySource>(keys));
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

    [Fact]
    public async Task StartAsync_ShippedHostJson_BindsTheExtensionsQueuesOptions()
    {
        // Arrange: the shipped values, stated here as docs/queue.md's settings table gives them, not read from host.json,
        // so a host.json that drifts from the documented values fails.
        const int batchSize = 32;
        const int newBatchThreshold = 16;
        const int maxDequeueCount = 5;
        var visibilityTimeout = TimeSpan.FromSeconds(30);

        // Act: what the host bound from the shipped host.json.
        await using var host = await QueueFunctionHost.StartAsync(_azurite, _output);
        var options = host.Services.GetRequiredService<IOptions<WidgetQueueOptions>>().Value;

        // Assert (maxPollingInterval is the tests' own).
        Assert.Equal(batchSize, options.BatchSize);
        Assert.Equal(newBatchThreshold, options.EffectiveNewBatchThreshold);
        Assert.Equal(maxDequeueCount, options.MaxDequeueCount);
        Assert.Equal(visibilityTimeout, options.VisibilityTimeout);
        Assert.Equal(QueueFunctionHost.TestPollingInterval, options.MaxPollingInterval);
    }

    [Fact]
    public async Task RunAsync_ClaimCheckPathTraversal_IsRejectedAndNothingOutsideTheContainerIsRead()
    {
        // Arrange: a valid envelope outside the claim-check container; signing it would prove it was read.
        await using var host = await QueueFunctionHost.StartAsync(_azurite, _output);
        var victim = host.Canonical;
        await victim.CreateIfNotExistsAsync();
        var envelope = Vector.Load("one-widget").Input;
        await victim.GetBlobClient("secret.json").UploadAsync(new BinaryData(envelope));
        await host.Claims.GetBlobClient("inside.json").UploadAsync(new BinaryData(envelope));
        var names = new[]
        {
            $"../{victim.Name}/secret.json",
            $"x/../../{victim.Name}/secret.json",
            $"/{victim.Name}/secret.json",
            $"..\\{victim.Name}\\secret.json",
            $"./../{victim.Name}/secret.json",
        };

        // Act
        var ids = new List<string>();
        foreach (var name in names)
        {
            ids.Add(await host.EnqueueAsync(Encoding.UTF8.GetBytes(ClaimCheckJsonFor(host, name))));
        }

        var rejected = await QueueFunctionHost.ReceiveAsync(host.Rejected, names.Length, Patience);

        // Assert: every one rejected at the blob name, none signed, none poisoned.
        Assert.Equal(ids.Order(StringComparer.Ordinal), rejected.Select(r => r.Value<string>("messageId")!).Order(StringComparer.Ordinal));
        Assert.All(rejected, r => Assert.Equal("$.claimCheck.blob", r.Value<string>("jsonPath")));
        Assert.All(rejected, r => Assert.NotNull(r["body"]));
        Assert.True(await QueueFunctionHost.WaitEmptyAsync(host.Input, Patience), "the input queue should be empty");
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Output));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Poison));
    }

    [Fact]
    public async Task RunAsync_ClaimCheckWithHugeMemberName_RejectedMessageIsBoundedAndDelivered()
    {
        // Arrange: the largest member name whose base64 message still fits the 64 KiB queue limit.
        await using var host = await QueueFunctionHost.StartAsync(_azurite, _output);
        var name = new string('m', 46 * 1024);
        var body = Encoding.UTF8.GetBytes("{\"claimCheck\":{\"blob\":\"x.json\",\"" + name + "\":1}}");

        // Act
        var id = await host.EnqueueAsync(body);
        var rejected = Assert.Single(await QueueFunctionHost.ReceiveAsync(host.Rejected, 1, Patience));

        // Assert: the reason names the member by a bounded prefix; the body is kept in full.
        Assert.Equal(id, rejected.Value<string>("messageId"));
        Assert.True(rejected.ToString(Newtonsoft.Json.Formatting.None).Length < 4096, "the rejected message should echo a bounded prefix only");
        Assert.Contains("Unknown or duplicate member 'mmm", rejected.Value<string>("reason"), StringComparison.Ordinal);
        Assert.Equal(body, await host.DownloadAsync(rejected["body"]!));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Poison));
    }

    [Fact]
    public async Task RunAsync_NotBase64Message_IsRejectedWithItsExactTextKeptNotPoisoned()
    {
        // Arrange
        await using var host = await QueueFunctionHost.StartAsync(_azurite, _output);
        const string text = "{\"widgets\":[]} sent as plain text, not base64 ~!";

        // Act
        var id = await host.EnqueueRawAsync(text);
        var rejected = Assert.Single(await QueueFunctionHost.ReceiveAsync(host.Rejected, 1, Patience));

        // Assert: one attempt, the reason, the producer's exact text in the rejected container; nothing retried or poisoned.
        Assert.Equal(id, rejected.Value<string>("messageId"));
        Assert.Equal(1, rejected.Value<int>("dequeueCount"));
        Assert.Contains("not valid base64", rejected.Value<string>("reason"), StringComparison.Ordinal);
        Assert.Equal(Encoding.UTF8.GetBytes(text), await host.DownloadAsync(rejected["body"]!));
        Assert.True(await QueueFunctionHost.WaitEmptyAsync(host.Input, Patience), "the input queue should be empty");
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Poison));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Output));
    }

    [Fact]
    public async Task RunAsync_DuplicateDeliveryAfterOutputBeforeDelete_YieldsOutputsDeduplicableByMessageId()
    {
        // Arrange: the first successful run of each message "crashes" after its output and before the delete: the
        // connection drops on every try of that delete (as when an instance dies), so the lease runs out and the
        // message comes back.
        var crashed = new ConcurrentDictionary<string, string>(StringComparer.Ordinal);
        await using var host = await QueueFunctionHost.StartAsync(
            _azurite,
            _output,
            new Dictionary<string, string?> { ["visibilityTimeout"] = "00:00:02" },
            overrideServices: services => services.AddSingleton(provider =>
                new WidgetStorageClientFactory(provider.GetRequiredService<IConfiguration>(), transport: new InterceptingTransport(message => FailFirstDelete(message, crashed)))));
        var small = Vector.Load("one-widget");
        var seed = Vector.Load("seed-3000-widgets");

        // Act
        var inline = await host.EnqueueAsync(small.Input);
        var claim = await host.EnqueueClaimCheckAsync("seed.json", seed.Input);
        var outputs = await QueueFunctionHost.ReceiveAsync(host.Output, 4, Patience);
        Assert.True(await QueueFunctionHost.WaitEmptyAsync(host.Input, Patience), "the input queue should be empty");
        outputs.AddRange(await QueueFunctionHost.ReceiveAsync(host.Output, 1, TimeSpan.FromSeconds(2)));

        // Assert: each message was delivered twice and produced two outputs...
        Assert.Equal(2, crashed.Count);
        Assert.Equal(4, outputs.Count);
        var byId = outputs.GroupBy(o => o.Value<string>("messageId")!).ToDictionary(g => g.Key, g => g.ToList());
        Assert.Equal(new[] { claim, inline }.Order(StringComparer.Ordinal), byId.Keys.Order(StringComparer.Ordinal));

        // ...that agree on everything a consumer keeps: keeping the first per messageId loses nothing.
        foreach (var (id, copies) in byId)
        {
            Assert.Equal(2, copies.Count);
            Assert.Equal([1, 2], copies.Select(c => c.Value<int>("dequeueCount")).Order());
            Assert.Single(copies.Select(c => c.Value<string>("signature")).Distinct());
            Assert.Single(copies.Select(c => c.Value<string>("canonicalBase64") ?? c["canonicalBlob"]!.ToString()).Distinct());
        }

        Assert.Equal(small.SignatureHex, byId[inline][0].Value<string>("signature"));
        Assert.Equal(seed.SignatureHex, byId[claim][0].Value<string>("signature"));

        // The large canonical bytes: both deliveries signed the same bytes, so both point at one create-only blob.
        Assert.Equal(seed.Canonical, await host.DownloadAsync(byId[claim][1]["canonicalBlob"]!));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Poison));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Rejected));
    }

    [Fact]
    public async Task RunAsync_ClaimChecksNamingReceivers_ForwardsEachReceiversSignatureOrRejectsAnUnknownOne()
    {
        // Arrange: each receiver's own random key; the default receiver keeps the vectors' key.
        var partnerA = RandomNumberGenerator.GetBytes(32);
        var partnerB = RandomNumberGenerator.GetBytes(32);
        await using var host = await QueueFunctionHost.StartAsync(_azurite, _output, appSettings: new Dictionary<string, string?>
        {
            ["Signing:LocalKeys:partner-a"] = Convert.ToBase64String(partnerA),
            ["Signing:LocalKeys:partner-b"] = Convert.ToBase64String(partnerB),
            ["Queues:AllowedReceivers"] = "default,partner-a,partner-b,nobody",
        });
        var vector = Vector.Load("escapes-and-unicode");
        await host.Claims.GetBlobClient("named.json").UploadAsync(new BinaryData(vector.Input));

        // Act
        var signed = await host.EnqueueAsync(ClaimCheckWithReceivers(host, "named.json", "partner-a", "partner-b"));
        var unknown = await host.EnqueueAsync(ClaimCheckWithReceivers(host, "named.json", "partner-a", "nobody"));
        var output = Assert.Single(await QueueFunctionHost.ReceiveAsync(host.Output, 1, Patience));
        var rejected = Assert.Single(await QueueFunctionHost.ReceiveAsync(host.Rejected, 1, Patience));
        Assert.True(await QueueFunctionHost.WaitEmptyAsync(host.Input, Patience), "the input queue should be empty");

        // Assert: the known receivers' message forwarded with each one's HMAC; the unknown one's rejected naming it, nothing signed for it.
        Assert.Equal(signed, output.Value<string>("messageId"));
        Assert.Equal(vector.Canonical, Convert.FromBase64String(output.Value<string>("canonicalBase64")!));
        Assert.Equal(["partner-a", "partner-b"], output["receivers"]!.Select(r => r.Value<string>("receiver")));
        Assert.Equal([Hmac(partnerA, vector.Canonical), Hmac(partnerB, vector.Canonical)], output["receivers"]!.Select(r => r.Value<string>("signature")));
        Assert.Equal(unknown, rejected.Value<string>("messageId"));
        Assert.Equal("$.receivers", rejected.Value<string>("jsonPath"));
        Assert.Contains("'nobody'", rejected.Value<string>("reason"), StringComparison.Ordinal);
        Assert.Equal("named.json", rejected["claimCheck"]!.Value<string>("blob"));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Output));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(host.Poison));
    }

    private static byte[] ClaimCheckWithReceivers(QueueFunctionHost host, string blob, params string[] receivers) => Encoding.UTF8.GetBytes(
        new JObject { ["claimCheck"] = new JObject { ["container"] = host.Claims.Name, ["blob"] = blob }, ["receivers"] = new JArray(receivers) }
            .ToString(Newtonsoft.Json.Formatting.None));

    private static string ClaimCheckJsonFor(QueueFunctionHost host, string blob) =>
        new JObject { ["claimCheck"] = new JObject { ["container"] = host.Claims.Name, ["blob"] = blob } }.ToString(Newtonsoft.Json.Formatting.None);

    /// <summary>The 1-minute load average (Linux), to record how busy the shared machine was during a timing.</summary>
    private static string LoadAverage() =>
        File.Exists("/proc/loadavg") ? File.ReadAllText("/proc/loadavg").Split(' ')[0] : "n/a";

    /// <summary>The signature computed independently of the service: plain HMACSHA256 over the canonical bytes.</summary>
    private static string Hmac(byte[] canonical) => Hmac(Vector.Key, canonical);

    private static string Hmac(byte[] key, byte[] canonical) => Convert.ToHexString(HMACSHA256.HashData(key, canonical)).ToLowerInvariant();

    /// <summary>
    /// For the real HTTP transport: every delete of a message with the first pop receipt it sees for that message fails
    /// as a dropped connection (the SDK's retries included): a crash between output and delete.
    /// </summary>
    private static void FailFirstDelete(HttpMessage message, ConcurrentDictionary<string, string> crashed)
    {
        var uri = message.Request.Uri.ToUri();
        if (message.Request.Method != RequestMethod.Delete || !uri.AbsolutePath.Contains("/messages/", StringComparison.Ordinal))
        {
            return;
        }

        var id = uri.AbsolutePath[(uri.AbsolutePath.LastIndexOf('/') + 1)..];
        var receipt = System.Web.HttpUtility.ParseQueryString(uri.Query)["popreceipt"] ?? string.Empty;
        if (crashed.GetOrAdd(id, receipt) == receipt)
        {
            throw new IOException("test: the instance died between the output and the delete");
        }
    }

    /// <summary>A key source that is unavailable for its first calls, as Key Vault is during an outage.</summary>
    private sealed class FlakyKeySource(int failures) : IReceiverKeySource
    {
        private readonly SigningKey _key = new(ConfigurationReceiverKeySource.LocalKeyId, Vector.Key);
        private int _calls;

        public int Calls => Volatile.Read(ref _calls);

        public ReceiverId? DefaultReceiver => SigningTestExtensions.DefaultReceiver;

        public ValueTask<SigningKeys> GetSigningKeysAsync(ReceiverId receiver, CancellationToken cancellationToken) =>
            Interlocked.Increment(ref _calls) <= failures
                ? throw Problems.KeyUnavailable("Key Vault is unreachable (test).")
                : ValueTask.FromResult(new SigningKeys(_key, []));

        public ValueTask<IReadOnlyList<SigningKey>> GetVerificationKeysAsync(ReceiverId receiver, CancellationToken cancellationToken) =>
            ValueTask.FromResult<IReadOnlyList<SigningKey>>([_key]);

        public ValueTask<IReadOnlyList<KeyDescription>> DescribeKeysAsync(ReceiverId receiver, CancellationToken cancellationToken) =>
            ValueTask.FromResult<IReadOnlyList<KeyDescription>>([new KeyDescription(_key.KeyId, KeyState.Current, null, null, null)]);

        public ValueTask<ReceiverPage> ListReceiversAsync(string? pageToken, int pageSize, CancellationToken cancellationToken) =>
            ValueTask.FromResult(new ReceiverPage([SigningTestExtensions.DefaultReceiver], null));
    }

    [Fact]
    public async Task RunAsync_SignedAndRejectedMessages_EachLeavesOneAuditRecordNamingTheQueueAndMessage()
    {
        // Arrange: the audit log writes to captured logs; one good envelope, one that is not JSON.
        var logs = new CapturedLogs();
        using var loggers = LoggerFactory.Create(b => b.AddProvider(logs));
        await using var host = await QueueFunctionHost.StartAsync(_azurite, _output, overrideServices: services => services.AddSingleton(new AuditLog(loggers)));
        var vector = Vector.Load("one-widget");

        // Act
        var signedId = await host.EnqueueAsync(vector.Input);
        var rejectedId = await host.EnqueueAsync(Encoding.UTF8.GetBytes("not json"));
        Assert.Single(await QueueFunctionHost.ReceiveAsync(host.Output, 1, Patience));
        Assert.Single(await QueueFunctionHost.ReceiveAsync(host.Rejected, 1, Patience));

        // Assert: one record each, by event id; the signed one names the canonical bytes by their SHA-256.
        var records = logs.Entries.Where(e => e.EventId.Id == AuditLog.EventId && e.Category == AuditLog.Category).Select(e => e.Message).ToList();
        var sha256 = Convert.ToHexString(SHA256.HashData(vector.Canonical)).ToLowerInvariant();
        var signed = Assert.Single(records, r => r.Contains(signedId, StringComparison.Ordinal));
        Assert.StartsWith("Audit queue-sign signed", signed, StringComparison.Ordinal);
        Assert.Contains($"queue {host.Input.Name} message {signedId}", signed, StringComparison.Ordinal);
        Assert.Contains($"SHA-256 {sha256}", signed, StringComparison.Ordinal);
        Assert.Contains("receivers default:local", signed, StringComparison.Ordinal);
        var rejected = Assert.Single(records, r => r.Contains(rejectedId, StringComparison.Ordinal));
        Assert.StartsWith("Audit queue-sign rejected", rejected, StringComparison.Ordinal);
        Assert.Equal(2, records.Count);
    }
}
