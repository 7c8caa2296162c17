using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Text;
using System.Text.Json;
using System.Text.RegularExpressions;
using Azure.Storage.Blobs;
using Azure.Storage.Queues;
using FunctionApp.Tests.Isolated;
using FunctionApp.Tests.TestKit;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Audit;

/// <summary>
/// The audit trail's promise under a crash (docs/audit-trail.md, "What the trail proves"): a signature leaves only once
/// its record is durable, so a worker killed (SIGKILL, no shutdown) mid-burst loses no record of anything answered or
/// sent. The published isolated app runs in tools/WorkerHost on Azurite, the audit store on, each test with its own
/// audit container; the host's supervisor restarts the killed worker. Records whose answer was lost may be there too
/// (recorded, never answered; a redelivered message recorded twice): counted and written to the test output.
/// </summary>
public sealed partial class AuditCrashTests : IClassFixture<IsolatedQueueTests.NewerApiAzuriteFixture>
{
    private const int Clients = 8;
    private const int AnsweredBeforeKill = 100;
    private const int AnsweredAfterKill = 50;
    private const int QueueMessages = 200;
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    private readonly AzuriteFixture _azurite;
    private readonly ITestOutputHelper _output;

    public AuditCrashTests(IsolatedQueueTests.NewerApiAzuriteFixture azurite, ITestOutputHelper output)
    {
        _azurite = azurite;
        _output = output;
    }

    [Fact]
    public async Task Sign_WorkerKilledMidBurstAtConcurrency8_EveryAnsweredSignatureHasADurableRecord()
    {
        // Arrange
        var container = AuditContainerName();
        await using var host = await IsolatedAppHost.StartAsync(IsolatedAppHost.Settings(_azurite.ConnectionString, new Dictionary<string, string>
        {
            ["Audit:Container"] = container,
        }));
        var request = SignRequest(host.BaseAddress, Vector.Load("one-widget").Input);
        var answered = new ConcurrentBag<string>();
        var notAnswered = new ConcurrentDictionary<string, int>(StringComparer.Ordinal);
        var ok = 0;
        var inFlight = 0;
        var killed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var okAtKill = -1;
        using var stop = new CancellationTokenSource();
        var firstWorker = host.WorkerPids()[^1];

        async Task ClientAsync()
        {
            while (!stop.IsCancellationRequested)
            {
                Interlocked.Increment(ref inFlight);
                RawHttpOutcome outcome;
                try
                {
                    using var client = await RawHttpClient.ConnectAsync(host.BaseAddress);
                    await client.SendAsync(request);
                    outcome = await client.ReadResponseAsync(Patience);
                }
                catch (System.Net.Sockets.SocketException e)
                {
                    outcome = new RawHttpOutcome(null, $"connect/send: {e.SocketErrorCode}", TimeSpan.Zero);
                }
                finally
                {
                    Interlocked.Decrement(ref inFlight);
                }

                if (outcome.Response is { Status: 200 } response)
                {
                    answered.Add(response.Json["webhook"]!.Value<string>("id")!);
                    var count = Interlocked.Increment(ref ok);
                    if (killed.Task.IsCompleted && count - Volatile.Read(ref okAtKill) >= AnsweredAfterKill)
                    {
                        await stop.CancelAsync();
                    }
                }
                else
                {
                    notAnswered.AddOrUpdate(outcome.Response is { } r ? r.Status.ToString(CultureInfo.InvariantCulture) : outcome.Failure!.Split(';')[0], 1, (_, n) => n + 1);
                }
            }
        }

        // Act: 8 clients in a loop; after 100 signatures, SIGKILL the worker while several requests are in flight; go on
        // until the restarted worker has answered 50 more.
        var clock = Stopwatch.StartNew();
        var clients = Enumerable.Range(0, Clients).Select(_ => Task.Run(ClientAsync)).ToList();
        while (Volatile.Read(ref ok) < AnsweredBeforeKill && clock.Elapsed < TimeSpan.FromMinutes(3) && !clients.Any(c => c.IsCompleted))
        {
            await Task.Delay(1);
        }

        Assert.True(Volatile.Read(ref ok) >= AnsweredBeforeKill, $"only {ok} signatures before the kill; {Describe(notAnswered)}:\n{Tail(host.Output)}");
        var inFlightWait = Stopwatch.StartNew();
        while (Volatile.Read(ref inFlight) < Clients / 2 && inFlightWait.Elapsed < TimeSpan.FromSeconds(5))
        {
            await Task.Yield();
        }

        var inFlightAtKill = Volatile.Read(ref inFlight);
        var outputAtKill = host.Output.Length;
        Volatile.Write(ref okAtKill, Volatile.Read(ref ok));
        using (var worker = Process.GetProcessById(firstWorker))
        {
            worker.Kill(); // SIGKILL: no shutdown, no last write, no anchor
            await worker.WaitForExitAsync();
        }

        killed.SetResult();
        stop.CancelAfter(TimeSpan.FromMinutes(3));
        await Task.WhenAll(clients);
        var elapsed = clock.Elapsed;
        var records = await ReadSignedRecordsAsync(container);

        // Assert: every answered webhook id has a durable `signed` record; the surplus are answers the clients never got.
        var answeredIds = answered.ToHashSet(StringComparer.Ordinal);
        var httpRecords = records.Where(r => r.Operation == "sign").ToList();
        var recordedIds = httpRecords.Select(r => r.WebhookId).OfType<string>().ToHashSet(StringComparer.Ordinal);
        var missing = answeredIds.Where(id => !recordedIds.Contains(id)).ToList();
        var recordedNotAnswered = recordedIds.Count(id => !answeredIds.Contains(id));
        var newWorker = host.WorkerPids().LastOrDefault();
        _output.WriteLine(
            $"{answered.Count} answered 200 ({Volatile.Read(ref okAtKill)} before the kill, {inFlightAtKill} requests in flight at it); not answered: {Describe(notAnswered)}; " +
            $"worker {firstWorker} killed, restarted as {newWorker}; {elapsed.TotalSeconds:F1} s in all.");
        _output.WriteLine(
            $"audit container {container}: {httpRecords.Count} signed records in {records.Select(r => r.Stream).Distinct().Count()} streams of " +
            $"{records.Select(r => r.Process).Distinct().Count()} processes; answered but not recorded: {missing.Count}; " +
            $"recorded but not answered: {recordedNotAnswered}.");
        await LogVerifyAsync(container);
        _output.WriteLine(Around(host.Output, outputAtKill));
        Assert.Equal(answered.Count, answeredIds.Count);
        Assert.True(missing.Count == 0, $"{missing.Count} answered signatures have no durable record, e.g. {string.Join(", ", missing.Take(5))}");
        Assert.NotEqual(firstWorker, newWorker);
        Assert.False(notAnswered.IsEmpty, "no request was in flight when the worker was killed");
        Assert.True(answered.Count - Volatile.Read(ref okAtKill) >= AnsweredAfterKill, $"the restarted worker answered {answered.Count - okAtKill} signatures:\n{Tail(host.Output)}");
    }

    [Fact]
    public async Task SignQueue_WorkerKilledMidBurst_EveryOutputMessageHasADurableRecord()
    {
        // Arrange: a failed run (the killed worker's in-flight ones) comes back after 1 s, not 30.
        var container = AuditContainerName();
        var prefix = "ac" + Guid.NewGuid().ToString("N")[..12];
        var settings = new Dictionary<string, string>(QueueTestResources.Settings(prefix))
        {
            ["AzureFunctionsJobHost__extensions__queues__maxPollingInterval"] = "00:00:00.500",
            ["AzureFunctionsJobHost__extensions__queues__visibilityTimeout"] = "00:00:01",
            ["Audit:Container"] = container,
        };
        await using var host = await IsolatedAppHost.StartAsync(IsolatedAppHost.Settings(_azurite.ConnectionString, settings));
        var resources = new QueueTestResources(new QueueServiceClient(_azurite.ConnectionString), new BlobServiceClient(_azurite.ConnectionString), prefix);
        await resources.CreateAsync();
        var small = Vector.All().Where(v => !v.Reject && v.Input.Length < 40 * 1024).ToList();
        var firstWorker = host.WorkerPids()[^1];

        // Act: 200 inline envelopes; after a quarter of the outputs, SIGKILL the worker while the host has several runs in flight.
        var clock = Stopwatch.StartNew();
        var ids = await Task.WhenAll(Enumerable.Range(0, QueueMessages)
            .Select(async i => (await resources.Input.SendMessageAsync(Convert.ToBase64String(small[i % small.Count].Input))).Value.MessageId));
        var outputs = await QueueFunctionHost.ReceiveAsync(resources.Output, QueueMessages / 4, Patience);
        Assert.True(outputs.Count >= QueueMessages / 4, $"{outputs.Count} outputs before the kill:\n{Tail(host.Output)}");
        var inFlightWait = Stopwatch.StartNew();
        while (InFlightRuns(host.Output) < 3 && inFlightWait.Elapsed < Patience)
        {
            await Task.Delay(1);
        }

        var inFlightAtKill = InFlightRuns(host.Output);
        var outputAtKill = host.Output.Length;
        var outputsAtKill = outputs.Count;
        using (var worker = Process.GetProcessById(firstWorker))
        {
            worker.Kill(); // SIGKILL: no shutdown, no last write, no anchor
            await worker.WaitForExitAsync();
        }

        var missingOutputs = ids.ToHashSet(StringComparer.Ordinal);
        while (clock.Elapsed < TimeSpan.FromMinutes(4))
        {
            missingOutputs.ExceptWith(outputs.Select(o => o.Value<string>("messageId")!));
            if (missingOutputs.Count == 0)
            {
                break;
            }

            outputs.AddRange(await QueueFunctionHost.ReceiveAsync(resources.Output, missingOutputs.Count, TimeSpan.FromSeconds(5)));
        }

        var drained = await QueueFunctionHost.WaitEmptyAsync(resources.Input, Patience);

        // Anything still to come is a redelivery's second output: give it time to show up.
        outputs.AddRange(await QueueFunctionHost.ReceiveAsync(resources.Output, int.MaxValue, TimeSpan.FromSeconds(3)));
        var elapsed = clock.Elapsed;
        var records = await ReadSignedRecordsAsync(container);

        // Assert: each output's message id (and webhook id) has a `signed` record of this queue with that message id.
        var queueRecords = records.Where(r => r.Operation == "queue-sign" && r.Queue == resources.Input.Name).ToList();
        var byMessage = queueRecords.GroupBy(r => r.MessageId ?? string.Empty, StringComparer.Ordinal).ToDictionary(g => g.Key, g => g.ToList(), StringComparer.Ordinal);
        var missing = new List<string>();
        foreach (var output in outputs)
        {
            var messageId = output.Value<string>("messageId")!;
            var webhookId = output["webhook"]?.Value<string>("id");
            if (!byMessage.TryGetValue(messageId, out var recorded) || (webhookId is not null && !recorded.Any(r => r.WebhookId == webhookId)))
            {
                missing.Add($"{messageId} ({webhookId ?? "no webhook id"})");
            }
        }

        var recordedTwice = byMessage.Where(g => g.Value.Count > 1).ToList();
        var outputTwice = outputs.GroupBy(o => o.Value<string>("messageId")).Count(g => g.Count() > 1);
        var newWorker = host.WorkerPids().LastOrDefault();
        _output.WriteLine(
            $"{QueueMessages} messages; worker {firstWorker} killed after {outputsAtKill} outputs with {inFlightAtKill} runs in flight, restarted as {newWorker}; " +
            $"{FailedRuns(host.Output)} runs failed with it; {outputs.Count} outputs ({outputs.Count - outputs.Select(o => o.Value<string>("messageId")).Distinct().Count()} duplicates, " +
            $"{outputTwice} message ids output twice or more) after {elapsed.TotalSeconds:F1} s.");
        _output.WriteLine(
            $"audit container {container}: {queueRecords.Count} signed records of {byMessage.Count} message ids in {records.Select(r => r.Stream).Distinct().Count()} streams " +
            $"of {records.Select(r => r.Process).Distinct().Count()} processes; outputs without a record: {missing.Count}; message ids recorded twice or more " +
            $"(redeliveries after the kill): {recordedTwice.Count}{(recordedTwice.Count > 0 ? " e.g. " + string.Join(", ", recordedTwice.Take(3).Select(g => $"{g.Key} x{g.Value.Count}")) : string.Empty)}; " +
            $"recorded but never output: {byMessage.Keys.Count(id => outputs.All(o => o.Value<string>("messageId") != id))}.");
        await LogVerifyAsync(container);
        _output.WriteLine(Around(host.Output, outputAtKill));
        Assert.True(missingOutputs.Count == 0, $"{missingOutputs.Count} message ids have no output:\n{Tail(host.Output)}");
        Assert.True(drained, "the input queue should be empty");
        Assert.True(missing.Count == 0, $"{missing.Count} output messages have no durable record, e.g. {string.Join(", ", missing.Take(5))}");
        Assert.NotEqual(firstWorker, newWorker);
        Assert.True(FailedRuns(host.Output) > 0, "no run was in flight when the worker was killed");
        Assert.Equal(0, await QueueFunctionHost.CountAsync(resources.Poison));
    }

    /// <summary>A fresh audit container per test, so the records read are this test's only.</summary>
    private static string AuditContainerName() => "audit-crash-" + Guid.NewGuid().ToString("N")[..12];

    /// <summary>POST /api/sign with <paramref name="body"/>, on a connection of its own (closed after the answer).</summary>
    private static byte[] SignRequest(Uri baseAddress, byte[] body)
    {
        var head = $"POST /api/sign HTTP/1.1\r\nHost: {baseAddress.Authority}\r\nContent-Type: application/json\r\nContent-Length: {body.Length}\r\nConnection: close\r\n\r\n";
        return [.. Encoding.ASCII.GetBytes(head), .. body];
    }

    /// <summary>Every <c>signed</c> line of every <c>streams/</c> blob in <paramref name="containerName"/>, read with the Azure SDK.</summary>
    private async Task<List<SignedRecord>> ReadSignedRecordsAsync(string containerName)
    {
        var container = new BlobServiceClient(_azurite.ConnectionString).GetBlobContainerClient(containerName);
        var records = new List<SignedRecord>();
        await foreach (var blob in container.GetBlobsAsync(prefix: "streams/"))
        {
            var content = (await container.GetBlobClient(blob.Name).DownloadContentAsync()).Value.Content.ToString();
            foreach (var line in content.Split('\n', StringSplitOptions.RemoveEmptyEntries))
            {
                using var json = JsonDocument.Parse(line);
                var root = json.RootElement;
                if (root.GetProperty("kind").GetString() == "signed")
                {
                    records.Add(new SignedRecord(
                        blob.Name,
                        blob.Name.Split('/')[1],
                        root.GetProperty("operation").GetString(),
                        Text(root, "webhookId"),
                        Text(root, "queue"),
                        Text(root, "messageId")));
                }
            }
        }

        return records;

        static string? Text(JsonElement element, string name) =>
            element.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.String ? value.GetString() : null;
    }

    /// <summary>What the audit checker says of the trail the crash left (for the output; the chain is not this test's subject).</summary>
    private async Task LogVerifyAsync(string container)
    {
        var run = await AuditTrailTool.RunAsync(_azurite.ConnectionString, "verify", "--container", container);
        _output.WriteLine($"npm run audit -- verify (exit {run.ExitCode}):\n{run.Output}{run.Error}");
    }

    private static string Describe(ConcurrentDictionary<string, int> outcomes) =>
        outcomes.IsEmpty ? "none" : string.Join(", ", outcomes.OrderBy(o => o.Key, StringComparer.Ordinal).Select(o => $"{o.Value} x {o.Key}"));

    /// <summary>The host's output from a little before <paramref name="at"/> (where it stood at the kill) to some way after.</summary>
    private static string Around(string text, int at) => "host output around the kill:\n" + text[Math.Max(0, at - 6_000)..Math.Min(text.Length, at + 14_000)];

    private static string Tail(string text) => text.Length > 20_000 ? text[^20_000..] : text;

    /// <summary>Runs the WebJobs host has started and not yet finished, from its Executing / Executed lines.</summary>
    private static int InFlightRuns(string hostOutput) => StartedRun().Matches(hostOutput).Count - FinishedRun().Matches(hostOutput).Count;

    private static int FailedRuns(string hostOutput) => FailedRun().Matches(hostOutput).Count;

    [GeneratedRegex(@"Executing '(?:Functions\.)?SignQueue'")]
    private static partial Regex StartedRun();

    [GeneratedRegex(@"Executed '(?:Functions\.)?SignQueue'")]
    private static partial Regex FinishedRun();

    [GeneratedRegex(@"Executed '(?:Functions\.)?SignQueue' \(Failed")]
    private static partial Regex FailedRun();

    private sealed record SignedRecord(string Stream, string Process, string? Operation, string? WebhookId, string? Queue, string? MessageId);
}
