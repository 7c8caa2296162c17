using System.Diagnostics;
using System.Net;
using System.Security.Cryptography;
using System.Text;
using System.Text.RegularExpressions;
using Azure.Storage.Blobs;
using Azure.Storage.Queues;
using FunctionApp.Tests.TestKit;
using Newtonsoft.Json.Linq;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Isolated;

/// <summary>
/// The isolated app's queue function as tools/WorkerHost runs it (the official Storage Queues extension 5.x polling
/// Azurite, the published worker signing): what the in-process app's <c>SignQueueFunctionTests</c> assert, plus a worker
/// killed mid-burst. Every test starts its own host with its own queues and containers on one shared Azurite.
/// </summary>
public sealed partial class IsolatedQueueTests : IClassFixture<IsolatedQueueTests.NewerApiAzuriteFixture>
{
    // A quarter of the burst below: most of it still waits on the queue when the worker is killed.
    private const int KilledAfterOutputs = 50;

    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    private readonly AzuriteFixture _azurite;
    private readonly ITestOutputHelper _output;

    public IsolatedQueueTests(NewerApiAzuriteFixture azurite, ITestOutputHelper output)
    {
        _azurite = azurite;
        _output = output;
    }

    [Fact]
    public async Task SignQueue_InlineEnvelope_ForwardsTheVectorsSignatureAndEmptiesTheInput()
    {
        // Arrange
        await using var app = await QueueApp.StartAsync(_azurite.ConnectionString, _output);
        var vector = Vector.Load("one-widget");

        // Act
        var id = await app.EnqueueAsync(vector.Input);
        var outputs = await QueueFunctionHost.ReceiveAsync(app.Output, 1, Patience);
        Assert.True(await QueueFunctionHost.WaitEmptyAsync(app.Input, Patience), "the input queue should be empty");

        // Anything still to come would be a duplicate: give it time to show up.
        outputs.AddRange(await QueueFunctionHost.ReceiveAsync(app.Output, 1, TimeSpan.FromSeconds(3)));

        // Assert
        var output = Assert.Single(outputs);
        Assert.Equal(id, output.Value<string>("messageId"));
        Assert.Equal(vector.SignatureHex, output.Value<string>("signature"));
        Assert.Equal(vector.WidgetCount, output.Value<int>("widgetCount"));
        Assert.Equal(vector.Canonical, Convert.FromBase64String(output.Value<string>("canonicalBase64")!));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(app.Rejected));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(app.Poison));
    }

    [Fact]
    public async Task Settings_SignatureFormsWebhook_QueueOutputAndHttpAnswerCarryOnlyTheWebhookForm()
    {
        // Arrange: both settings through the isolated app's configuration, one host for both paths.
        await using var app = await QueueApp.StartAsync(_azurite.ConnectionString, _output, new Dictionary<string, string>
        {
            ["Queues:SignatureForms"] = "Webhook",
            ["Http:SignatureForms"] = "Webhook",
        });
        var vector = Vector.Load("one-widget");
        using var client = new HttpClient { BaseAddress = app.Host.BaseAddress, Timeout = TimeSpan.FromSeconds(60) };
        static ByteArrayContent Json(byte[] body) => new(body) { Headers = { ContentType = new("application/json") } };

        // Act
        var id = await app.EnqueueAsync(vector.Input);
        var output = Assert.Single(await QueueFunctionHost.ReceiveAsync(app.Output, 1, Patience));
        using var signed = await client.PostAsync("/api/sign", Json(vector.Input));
        using var refused = await client.PostAsync("/api/sign?forms=plain", Json(vector.Input));

        // Assert: the queue output's webhook is the spec's formula over the bytes with the queue_ id, and no hex signature.
        var webhookId = DerivedWebhookId.ForQueueMessage(id, vector.Canonical);
        var timestamp = output["webhook"]!.Value<long>("timestamp").ToString(System.Globalization.CultureInfo.InvariantCulture);
        Assert.Equal(webhookId, output["webhook"]!.Value<string>("id"));
        Assert.Equal(DerivedWebhookId.WebhookSignature(Vector.Key, webhookId, timestamp, vector.Canonical), output["webhook"]!.Value<string>("signature"));
        Assert.Null(output["signature"]);
        Assert.Null(output["signatures"]);
        Assert.Equal(System.Net.HttpStatusCode.OK, signed.StatusCode);
        Assert.False(signed.Headers.Contains("X-Signature"));
        Assert.True(signed.Headers.Contains("webhook-signature"));
        Assert.Equal(System.Net.HttpStatusCode.BadRequest, refused.StatusCode);
        Assert.Contains("Http:SignatureForms", await refused.Content.ReadAsStringAsync(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task SignQueue_SeedEnvelopeByClaimCheck_ForwardsSignatureAndWritesTheCanonicalBlob()
    {
        // Arrange
        await using var app = await QueueApp.StartAsync(_azurite.ConnectionString, _output);
        var seed = Vector.Load("seed-3000-widgets");
        Assert.True(seed.Input.Length > 900_000, "the seed envelope is the ~1 MB case");
        await app.Claims.GetBlobClient("incoming/seed.json").UploadAsync(new BinaryData(seed.Input));

        // Act
        var id = await app.EnqueueClaimCheckAsync("incoming/seed.json");
        var output = Assert.Single(await QueueFunctionHost.ReceiveAsync(app.Output, 1, Patience));

        // Assert
        Assert.Equal(id, output.Value<string>("messageId"));
        Assert.Equal(seed.SignatureHex, output.Value<string>("signature"));
        Assert.Equal(seed.WidgetCount, output.Value<int>("widgetCount"));
        Assert.Equal(seed.CanonicalLength, output.Value<long>("canonicalLength"));
        Assert.Null(output["canonicalBase64"]);
        Assert.Equal(app.Claims.Name, output["claimCheck"]!.Value<string>("container"));
        Assert.Equal("incoming/seed.json", output["claimCheck"]!.Value<string>("blob"));

        var reference = output["canonicalBlob"]!;
        Assert.Equal(app.Canonical.Name, reference.Value<string>("container"));
        var canonical = (await app.Canonical.GetBlobClient(reference.Value<string>("blob")).DownloadContentAsync()).Value.Content.ToArray();
        Assert.Equal(seed.Canonical, canonical);
        Assert.Equal(seed.SignatureHex, Hmac(canonical));
        Assert.True(await QueueFunctionHost.WaitEmptyAsync(app.Input, Patience), "the input queue should be empty");
        Assert.Equal(0, await QueueFunctionHost.CountAsync(app.Poison));
    }

    [Fact]
    public async Task SignQueue_ClaimCheckNamingTwoReceivers_EachReceiversSignatureIsItsOwnKeysHmac()
    {
        // Arrange: the receivers' keys are those of the settings sample the host runs with.
        await using var app = await QueueApp.StartAsync(_azurite.ConnectionString, _output);
        var sample = JObject.Parse(File.ReadAllText(Path.Combine(RepoRoot.Path, "FunctionApp.Isolated", "local.settings.sample.json")))["Values"]!;
        var keys = new[] { "partner-a", "partner-b" }.Select(r => Convert.FromBase64String(sample.Value<string>("Signing:LocalKeys:" + r)!)).ToList();
        var vector = Vector.Load("escapes-and-unicode");
        await app.Claims.GetBlobClient("named.json").UploadAsync(new BinaryData(vector.Input));
        var message = new JObject
        {
            ["claimCheck"] = new JObject { ["blob"] = "named.json" },
            ["receivers"] = new JArray("partner-a", "partner-b"),
        };

        // Act
        var id = await app.EnqueueAsync(Encoding.UTF8.GetBytes(message.ToString(Newtonsoft.Json.Formatting.None)));
        var output = Assert.Single(await QueueFunctionHost.ReceiveAsync(app.Output, 1, Patience));

        // Assert: no unnamed signature; each receiver's plain and Standard Webhooks signature made with its own key.
        Assert.Equal(id, output.Value<string>("messageId"));
        Assert.Null(output["signature"]);
        Assert.Equal(vector.Canonical, Convert.FromBase64String(output.Value<string>("canonicalBase64")!));
        var webhookId = output["webhook"]!.Value<string>("id")!;
        var timestamp = output["webhook"]!.Value<long>("timestamp").ToString(System.Globalization.CultureInfo.InvariantCulture);
        Assert.Equal(DerivedWebhookId.ForQueueMessage(id, vector.Canonical), webhookId);
        var receivers = output["receivers"]!.ToList();
        Assert.Equal(["partner-a", "partner-b"], receivers.Select(r => r.Value<string>("receiver")));
        for (var i = 0; i < keys.Count; i++)
        {
            Assert.Equal(Hmac(keys[i], vector.Canonical), receivers[i].Value<string>("signature"));
            Assert.Equal(DerivedWebhookId.WebhookSignature(keys[i], webhookId, timestamp, vector.Canonical), receivers[i].Value<string>("webhookSignature"));
        }

        Assert.True(await QueueFunctionHost.WaitEmptyAsync(app.Input, Patience), "the input queue should be empty");
        Assert.Equal(0, await QueueFunctionHost.CountAsync(app.Rejected));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(app.Poison));
    }

    [Fact]
    public async Task SignQueue_InvalidEnvelope_LandsOnTheRejectedQueueWithItsJsonPathAndIsNotPoisoned()
    {
        // Arrange
        await using var app = await QueueApp.StartAsync(_azurite.ConnectionString, _output);
        var vector = Vector.Load("missing-property");
        Assert.True(vector.Reject, "missing-property is a negative vector");

        // Act
        var id = await app.EnqueueAsync(vector.Input);
        var rejected = await QueueFunctionHost.ReceiveAsync(app.Rejected, 1, Patience);
        Assert.True(await QueueFunctionHost.WaitEmptyAsync(app.Input, Patience), "the input queue should be empty");

        // Assert
        var message = Assert.Single(rejected);
        Assert.Equal(id, message.Value<string>("messageId"));
        Assert.Equal("$.widgets[0]", message.Value<string>("jsonPath"));
        Assert.Contains("lacks required member", message.Value<string>("reason"), StringComparison.Ordinal);
        Assert.Equal(1, message.Value<int>("dequeueCount"));

        // The inline body is kept, byte for byte, in the rejected container.
        var body = message["body"]!;
        Assert.Equal(app.RejectedBodies.Name, body.Value<string>("container"));
        Assert.Equal(vector.Input, (await app.RejectedBodies.GetBlobClient(body.Value<string>("blob")).DownloadContentAsync()).Value.Content.ToArray());
        Assert.Equal(0, await QueueFunctionHost.CountAsync(app.Output));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(app.Poison));
    }

    [Fact]
    public async Task SignQueue_NotBase64Message_IsPoisonedByTheExtensionWithoutARunOrARejection()
    {
        // Arrange: unlike the in-process app, whose own trigger rejects such text with a reason (SignQueueFunctionTests),
        // the official extension decodes every message before the function runs (docs/queue.md, Failures).
        await using var app = await QueueApp.StartAsync(_azurite.ConnectionString, _output);
        const string sent = "this is not base64!";

        // Act
        await app.Input.SendMessageAsync(sent);
        var poisoned = await QueueFunctionHost.ReceiveRawAsync(app.Poison, Patience);

        // Assert: the text as sent on <input>-poison, the function never run, nothing rejected or forwarded.
        Assert.Equal(sent, poisoned);
        Assert.True(await QueueFunctionHost.WaitEmptyAsync(app.Input, Patience), "the input queue should be empty");
        Assert.Empty(StartedRun().Matches(app.Host.Output));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(app.Rejected));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(app.Output));
    }

    [Fact]
    public async Task SignQueue_BlobServiceUnreachableForAClaimCheck_PoisonsTheMessageAfterMaxDequeueCountAttempts()
    {
        // Arrange: the app's WidgetStorage reaches Azurite's queues, but its blob endpoint is a loopback port nothing
        // listens on, so reading the claim blob fails every time with a transport error: a transient storage failure
        // (only a 404 is a rejection), which the core throws for the trigger to retry and, at the limit, poison. Each run
        // takes ~27 s: the storage client's own retries (6 tries, exponential back-off) before the run fails.
        var deadBlobs = Regex.Replace(_azurite.ConnectionString, @"BlobEndpoint=http://127\.0\.0\.1:\d+/", $"BlobEndpoint=http://127.0.0.1:{Loopback.FreePort()}/");
        Assert.NotEqual(_azurite.ConnectionString, deadBlobs);
        const int maxDequeueCount = 2;
        await using var app = await QueueApp.StartAsync(
            _azurite.ConnectionString,
            _output,
            new Dictionary<string, string>
            {
                ["WidgetStorage"] = deadBlobs,
                ["AzureFunctionsJobHost__extensions__queues__maxDequeueCount"] = maxDequeueCount.ToString(System.Globalization.CultureInfo.InvariantCulture),
                ["AzureFunctionsJobHost__extensions__queues__visibilityTimeout"] = "00:00:00",
            });
        await app.Claims.GetBlobClient("unreadable.json").UploadAsync(new BinaryData(Vector.Load("one-widget").Input));

        // Act
        var id = await app.EnqueueClaimCheckAsync("unreadable.json");
        var sent = app.LastSentText;
        var poisoned = await QueueFunctionHost.ReceiveRawAsync(app.Poison, TimeSpan.FromMinutes(3));

        // Assert: the text arrives intact on <input>-poison after exactly maxDequeueCount failed runs, nothing forwarded.
        Assert.Equal(sent, poisoned);
        Assert.True(await QueueFunctionHost.WaitEmptyAsync(app.Input, Patience), "the input queue should be empty");
        Assert.Equal(maxDequeueCount, FailedRuns(app.Host.Output));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(app.Output));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(app.Rejected));
        _output.WriteLine($"message {id} poisoned after {FailedRuns(app.Host.Output)} failed runs");
    }

    [Fact]
    public async Task SignQueue_WorkerKilledDuringBurstOf200IncludingClaimChecks_EveryMessageIdHasItsOutput()
    {
        // Arrange: a failed run (the killed worker's in-flight ones) comes back after 1 s, not 30.
        await using var app = await QueueApp.StartAsync(
            _azurite.ConnectionString,
            _output,
            new Dictionary<string, string> { ["AzureFunctionsJobHost__extensions__queues__visibilityTimeout"] = "00:00:01" });
        var vectors = Vector.All().Where(v => !v.Reject).ToList();
        var small = vectors.Where(v => v.Input.Length < 40 * 1024).ToList();
        var seed = vectors.Single(v => v.Name == "seed-3000-widgets");
        await app.Claims.GetBlobClient("seed.json").UploadAsync(new BinaryData(seed.Input));

        // Every 20th message is a claim check of the ~1 MB seed (10 in all); the rest are inline envelopes.
        var plan = Enumerable.Range(0, 200).Select(i => i % 20 == 0 ? seed : small[i % small.Count]).ToList();
        var firstWorker = app.Host.WorkerPids().Last();

        // Act
        var clock = Stopwatch.StartNew();
        var ids = await Task.WhenAll(plan.Select(v => v == seed ? app.EnqueueClaimCheckAsync("seed.json") : app.EnqueueAsync(v.Input)));
        var outputs = await QueueFunctionHost.ReceiveAsync(app.Output, KilledAfterOutputs, Patience);
        Assert.True(outputs.Count >= KilledAfterOutputs, $"only {outputs.Count} outputs before the kill:\n{app.Host.Output}");

        // Kill a quarter of the way through, while most of the burst still waits on the queue (so the extension keeps runs
        // going: up to batchSize + newBatchThreshold) and the host has several in flight (more "Executing" than "Executed"
        // lines): its lines reach us a little late, so one run seen in flight may already be done when the kill lands.
        var inFlightWait = Stopwatch.StartNew();
        while (InFlightRuns(app.Host.Output) < 3 && inFlightWait.Elapsed < TimeSpan.FromSeconds(10))
        {
            await Task.Delay(1);
        }

        var inFlightAtKill = InFlightRuns(app.Host.Output);
        var killedAfter = outputs.Count;
        using (var worker = Process.GetProcessById(firstWorker))
        {
            worker.Kill();
            await worker.WaitForExitAsync();
        }

        var missing = ids.ToHashSet(StringComparer.Ordinal);
        var deadline = Stopwatch.StartNew();
        while (deadline.Elapsed < TimeSpan.FromMinutes(3))
        {
            missing.ExceptWith(outputs.Select(o => o.Value<string>("messageId")!));
            if (missing.Count == 0)
            {
                break;
            }

            outputs.AddRange(await QueueFunctionHost.ReceiveAsync(app.Output, missing.Count, TimeSpan.FromSeconds(5)));
        }

        var elapsed = clock.Elapsed;

        // Assert
        var newWorker = app.Host.WorkerPids().LastOrDefault();
        _output.WriteLine($"{plan.Count} messages ({plan.Count(v => v == seed)} ~1 MB claim checks); worker {firstWorker} killed after {killedAfter} outputs with {inFlightAtKill} runs in flight, " +
            $"restarted as {newWorker}; {FailedRuns(app.Host.Output)} runs failed with it; all forwarded after {elapsed.TotalSeconds:F1} s; " +
            $"{outputs.Count} outputs ({outputs.Count - ids.Length} duplicates).");
        Assert.True(missing.Count == 0, $"{missing.Count} message ids have no output:\n{app.Host.Output}");
        Assert.NotEqual(firstWorker, newWorker);
        Assert.Contains("exited unexpectedly", app.Host.Output, StringComparison.Ordinal);

        // The kill hit work in flight (the extension keeps at least newBatchThreshold runs going while messages wait):
        // those runs failed and their messages came back after the 1 s visibilityTimeout and were signed.
        Assert.True(FailedRuns(app.Host.Output) > 0, $"no run was in flight when the worker was killed ({inFlightAtKill} seen in flight, {killedAfter} outputs before)");
        for (var i = 0; i < plan.Count; i++)
        {
            // At least once: every output of an id (redeliveries included) carries that input's signature.
            Assert.All(outputs.Where(o => o.Value<string>("messageId") == ids[i]), o => Assert.Equal(plan[i].SignatureHex, o.Value<string>("signature")));
        }

        Assert.All(outputs, o => Assert.Contains(o.Value<string>("messageId"), ids));
        Assert.True(await QueueFunctionHost.WaitEmptyAsync(app.Input, Patience), "the input queue should be empty");
        Assert.Equal(0, await QueueFunctionHost.CountAsync(app.Rejected));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(app.Poison));
    }

    [Fact]
    public async Task SignQueue_MemoryBudgetSpentByLargeClaimChecksAtOnce_ReleasedNotFailedAndEveryOneForwarded()
    {
        // Arrange: the smallest budget (32 MiB) and six ~15 MB claim checks at once (just under Queues:MaxClaimCheckBytes),
        // each holding at least its canonical form in the pool: ~90 MB wanted, so some find the budget spent and are
        // released (UpdateMessage with the retry delay, the run succeeds), not failed; they come back and are signed.
        var budget = WidgetSigning.Signing.MemoryBudgetOptions.MinBytesInFlight;
        await using var app = await QueueApp.StartAsync(_azurite.ConnectionString, _output, new Dictionary<string, string>
        {
            [WidgetSigning.Signing.MemoryBudgetOptions.MaxBytesInFlightSetting] = budget.ToString(System.Globalization.CultureInfo.InvariantCulture),
        });
        var envelopes = Enumerable.Range(0, 6).Select(_ => LargeEnvelope(copies: 13)).ToList();
        for (var i = 0; i < envelopes.Count; i++)
        {
            await app.Claims.GetBlobClient($"large-{i}.json").UploadAsync(new BinaryData(envelopes[i]));
        }

        // Act
        var ids = await Task.WhenAll(Enumerable.Range(0, envelopes.Count).Select(i => app.EnqueueClaimCheckAsync($"large-{i}.json")));
        var outputs = await QueueFunctionHost.ReceiveAsync(app.Output, envelopes.Count, TimeSpan.FromMinutes(2));

        // Assert: released (the worker logged the spent budget), never failed or poisoned, and every output is the HMAC of
        // its canonical blob.
        Assert.Contains("Memory budget for envelopes in flight is spent", app.Host.Output, StringComparison.Ordinal);
        Assert.Equal(0, FailedRuns(app.Host.Output));
        Assert.Equal(ids.Order(StringComparer.Ordinal), outputs.Select(o => o.Value<string>("messageId")!).Distinct(StringComparer.Ordinal).Order(StringComparer.Ordinal));
        foreach (var output in outputs)
        {
            var reference = output["canonicalBlob"]!;
            var canonical = (await app.Canonical.GetBlobClient(reference.Value<string>("blob")).DownloadContentAsync()).Value.Content.ToArray();
            Assert.Equal(Hmac(canonical), output.Value<string>("signature"));
        }

        Assert.True(await QueueFunctionHost.WaitEmptyAsync(app.Input, Patience), "the input queue should be empty");
        Assert.Equal(0, await QueueFunctionHost.CountAsync(app.Poison));
        Assert.Equal(0, await QueueFunctionHost.CountAsync(app.Rejected));
    }

    /// <summary>The seed envelope's widgets <paramref name="copies"/> times over, each with a fresh id (~1.17 MB a copy).</summary>
    private static byte[] LargeEnvelope(int copies)
    {
        var seed = JObject.Parse(Encoding.UTF8.GetString(Vector.Load("seed-3000-widgets").Input));
        var widgets = new JArray();
        for (var copy = 0; copy < copies; copy++)
        {
            foreach (var widget in seed["widgets"]!.Children<JObject>())
            {
                var clone = (JObject)widget.DeepClone();
                clone["id"] = Guid.NewGuid().ToString();
                widgets.Add(clone);
            }
        }

        return Encoding.UTF8.GetBytes(new JObject { ["widgets"] = widgets }.ToString(Newtonsoft.Json.Formatting.None));
    }

    [Fact]
    public async Task WorkerHost_QueueServiceUnreachable_SurvivesAndSignsWhenItReturns()
    {
        // Arrange: the host reaches Azurite's three services through relays that can be cut, as if Azurite died. The
        // listener's poll then fails past the Storage Queues extension's own catch (a transport failure after its
        // retries is not a RequestFailedException it backs off on) and lands in the host's IWebJobsExceptionHandler: the
        // SDK's default rethrows it on a new thread and the process ends; the Functions host's handler
        // (azure-functions-host@89dc438d, src/WebJobs.Script.WebHost/WebScriptHostExceptionHandler.cs) logs it and stops
        // the host, which the platform starts again.
        await using var blob = new SeverableTcpRelay(_azurite.BlobServiceUri.Port);
        await using var queue = new SeverableTcpRelay(_azurite.QueueServiceUri.Port);
        await using var table = new SeverableTcpRelay(_azurite.TableServiceUri.Port);
        var relayed = _azurite.ConnectionString
            .Replace($":{_azurite.BlobServiceUri.Port}/", $":{blob.Port}/", StringComparison.Ordinal)
            .Replace($":{_azurite.QueueServiceUri.Port}/", $":{queue.Port}/", StringComparison.Ordinal)
            .Replace($":{_azurite.TableServiceUri.Port}/", $":{table.Port}/", StringComparison.Ordinal);
        await using var app = await QueueApp.StartAsync(_azurite.ConnectionString, _output, hostStorage: relayed);
        var vector = Vector.Load("one-widget");
        using var client = new HttpClient { BaseAddress = app.Host.BaseAddress, Timeout = TimeSpan.FromSeconds(60) };
        await app.EnqueueAsync(vector.Input);
        Assert.Single(await QueueFunctionHost.ReceiveAsync(app.Output, 1, Patience));

        // Act: storage goes away; wait until the listener has failed and a new queues host has started (or the process
        // ended); then storage comes back.
        await Task.WhenAll(blob.CutAsync(), queue.CutAsync(), table.CutAsync());
        var cutAt = app.Host.Output.Length;
        using var during = await client.PostAsync("/api/sign", JsonContent(vector.Input));
        var duringBody = await during.Content.ReadAsStringAsync();
        var waited = Stopwatch.StartNew();
        while (!app.Host.HasExited && !app.Host.Output[cutAt..].Contains("the queues host started again", StringComparison.Ordinal) && waited.Elapsed < Patience * 2)
        {
            await Task.Delay(200);
        }

        var afterOutage = app.Host.Output[cutAt..];
        var exitedDuringOutage = app.Host.HasExited;
        blob.Restore();
        queue.Restore();
        table.Restore();
        var id = exitedDuringOutage ? null : await app.EnqueueAsync(vector.Input);
        var outputs = exitedDuringOutage ? [] : await QueueFunctionHost.ReceiveAsync(app.Output, 1, Patience);
        using var after = exitedDuringOutage ? null : await client.PostAsync("/api/sign", JsonContent(vector.Input));

        // Assert: 503 audit-unavailable while storage is away; the failure logged, the host alive, and once storage is
        // back the queue message signed and HTTP signing again.
        _output.WriteLine($"after the cut ({waited.Elapsed.TotalSeconds:F1} s):\n{(afterOutage.Length > 8000 ? afterOutage[^8000..] : afterOutage)}");
        Assert.Equal(HttpStatusCode.ServiceUnavailable, during.StatusCode);
        Assert.Contains(WidgetSigning.Http.ProblemTypes.AuditUnavailable, duringBody, StringComparison.Ordinal);
        Assert.False(exitedDuringOutage, "WorkerHost exited while storage was unreachable");
        Assert.Contains("An unhandled exception has occurred", afterOutage, StringComparison.Ordinal);
        var output = Assert.Single(outputs);
        Assert.Equal(id, output.Value<string>("messageId"));
        Assert.Equal(vector.SignatureHex, output.Value<string>("signature"));
        Assert.Equal(HttpStatusCode.OK, after!.StatusCode);
        Assert.False(app.Host.HasExited);
    }

    private static ByteArrayContent JsonContent(byte[] body) => new(body) { Headers = { ContentType = new("application/json") } };

    /// <summary>
    /// Azurite as <c>npm run azurite</c> and scripts/start.mjs run it for local development (and as every isolated app host
    /// in these tests needs it, for its audit store and queues), with
    /// <c>--skipApiVersionCheck</c>: the isolated graph's Azure.Storage.Queues 12.28.1 / Blobs 12.30.1 speak service
    /// version 2026-10-06, newer than Azurite 3.35.0 serves (it answers 400 InvalidHeaderValue to every send and write).
    /// </summary>
    public sealed class NewerApiAzuriteFixture : AzuriteFixture
    {
        protected override IEnumerable<string> ExtraArguments(string workspace) => ["--skipApiVersionCheck"];
    }

    /// <summary>Runs the WebJobs host has started and not yet finished, from its Executing / Executed lines.</summary>
    private static int InFlightRuns(string hostOutput) => StartedRun().Matches(hostOutput).Count - FinishedRun().Matches(hostOutput).Count;

    [GeneratedRegex(@"Executing '(?:Functions\.)?SignQueue'")]
    private static partial Regex StartedRun();

    [GeneratedRegex(@"Executed '(?:Functions\.)?SignQueue'")]
    private static partial Regex FinishedRun();

    /// <summary>Runs of the function the WebJobs host logged as failed (its Host.Results / Function log lines).</summary>
    private static int FailedRuns(string hostOutput) => FailedRun().Matches(hostOutput).Count;

    private static string Hmac(byte[] canonical) => Hmac(Vector.Key, canonical);

    private static string Hmac(byte[] key, byte[] canonical) => Convert.ToHexString(HMACSHA256.HashData(key, canonical)).ToLowerInvariant();

    [GeneratedRegex(@"Executed '(?:Functions\.)?SignQueue' \(Failed")]
    private static partial Regex FailedRun();

    /// <summary>The isolated app in WorkerHost with its own queues and containers, and clients for them.</summary>
    private sealed class QueueApp : QueueTestHost, IAsyncDisposable
    {
        private readonly ITestOutputHelper _log;

        private QueueApp(IsolatedAppHost host, string connectionString, string prefix, ITestOutputHelper log)
            : base(new QueueTestResources(new QueueServiceClient(connectionString), new BlobServiceClient(connectionString), prefix))
        {
            Host = host;
            _log = log;
        }

        public IsolatedAppHost Host { get; }

        public string? LastSentText { get; private set; }

        /// <summary>
        /// Starts the host on <paramref name="storage"/> (Azurite) with fresh names; <paramref name="overrides"/> win. The
        /// host reaches storage through <paramref name="hostStorage"/> when given (a relay to the same Azurite); the
        /// test's own clients always use <paramref name="storage"/>.
        /// </summary>
        public static async Task<QueueApp> StartAsync(string storage, ITestOutputHelper output, IReadOnlyDictionary<string, string>? overrides = null, string? hostStorage = null)
        {
            var prefix = "iq" + Guid.NewGuid().ToString("N")[..12];
            var settings = new Dictionary<string, string>(QueueTestResources.Settings(prefix))
            {
                // Tests poll fast; everything else is the shipped host.json.
                ["AzureFunctionsJobHost__extensions__queues__maxPollingInterval"] = "00:00:00.500",
            };
            foreach (var (key, value) in overrides ?? new Dictionary<string, string>())
            {
                settings[key] = value;
            }

            var clock = Stopwatch.StartNew();
            var host = await IsolatedAppHost.StartAsync(IsolatedAppHost.Settings(hostStorage ?? storage, settings));
            output.WriteLine($"WorkerHost ready in {clock.Elapsed.TotalSeconds:F1} s ({prefix})");
            var app = new QueueApp(host, storage, prefix, output);
            await app.Resources.CreateAsync();
            return app;
        }

        /// <summary>Enqueues <paramref name="json"/> base64-encoded, as producers do; returns the message id.</summary>
        public async Task<string> EnqueueAsync(byte[] json)
        {
            var text = Convert.ToBase64String(json);
            LastSentText = text;
            return (await Input.SendMessageAsync(text)).Value.MessageId;
        }

        /// <summary>Enqueues a claim check naming <paramref name="blobName"/> in the claims container.</summary>
        public Task<string> EnqueueClaimCheckAsync(string blobName) => EnqueueAsync(QueueTestResources.ClaimCheckJson(Claims.Name, blobName));

        public async ValueTask DisposeAsync()
        {
            var output = Host.Output;
            await Host.DisposeAsync();
            _log.WriteLine(output.Length > 20_000 ? output[^20_000..] : output);
        }
    }
}
