using System.Text;
using System.Text.RegularExpressions;
using Azure.Storage.Blobs;
using Azure.Storage.Queues;
using FunctionApp.Tests.TestKit;
using Newtonsoft.Json.Linq;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Hosting;

/// <summary>
/// Competing instances and a crash: three local hosts, each its own OS process on the app's build output, share one
/// Azurite input queue; one is killed with SIGKILL in the middle of a 500-message burst (1 MB claim checks among them).
/// Nothing may be lost, every message id gets an output, messages the victim held are delivered again, all the outputs
/// of one message id carry one signature (a duplicate, when the victim forwarded before it could delete, so dedupes on
/// messageId; the kill cannot be timed to make one every run), and once the dead host's leases expire nothing is left
/// invisible. Leases are short (visibilityTimeout 3 s) so the run stays modest.
/// </summary>
[Collection(AzuriteCollection.Name)]
public sealed partial class CompetingHostsCrashTests(AzuriteFixture azurite, ITestOutputHelper output)
{
    private const int Messages = 500;
    private const int ClaimChecks = 20;
    private static readonly TimeSpan Lease = TimeSpan.FromSeconds(3);

    [Fact]
    public async Task ThreeHostProcesses_OneSigkilledMidBurst_NoneLostEveryIdAnsweredOneSignaturePerMessageId()
    {
        // Arrange
        var prefix = "crash" + Guid.NewGuid().ToString("N")[..8];
        var queueOptions = new QueueClientOptions { MessageEncoding = QueueMessageEncoding.None };
        var queues = new QueueServiceClient(azurite.ConnectionString, queueOptions);
        var blobs = new BlobServiceClient(azurite.ConnectionString);
        var input = queues.GetQueueClient($"{prefix}-in");
        var signatures = queues.GetQueueClient($"{prefix}-out");
        var rejected = queues.GetQueueClient($"{prefix}-rejected");
        var poison = queues.GetQueueClient($"{prefix}-in-poison");
        var claims = blobs.GetBlobContainerClient($"{prefix}-claims");
        foreach (var queue in new[] { input, signatures, rejected, poison })
        {
            await queue.CreateIfNotExistsAsync();
        }

        await claims.CreateIfNotExistsAsync();
        var environment = new Dictionary<string, string>
        {
            ["AzureWebJobsStorage"] = azurite.ConnectionString,
            ["WidgetStorage"] = azurite.ConnectionString,
            ["WidgetInputQueue"] = input.Name,
            ["WidgetOutputQueue"] = signatures.Name,
            ["WidgetRejectedQueue"] = rejected.Name,
            ["WidgetClaimsContainer"] = claims.Name,
            ["WidgetCanonicalContainer"] = $"{prefix}-canonical",
            ["WidgetRejectedContainer"] = $"{prefix}-rejected",
            ["AzureFunctionsJobHost__extensions__queues__visibilityTimeout"] = Lease.ToString(),
            ["AzureFunctionsJobHost__extensions__queues__maxPollingInterval"] = "00:00:00.500",
        };
        var seed = await File.ReadAllBytesAsync(Path.Combine(AppContext.BaseDirectory, "TestData", "vectors", "seed-3000-widgets", "input.json"));
        for (var i = 0; i < ClaimChecks; i++)
        {
            await claims.UploadBlobAsync($"seed-{i}.json", new BinaryData(seed));
        }

        // The whole burst waits on the queue before any host starts, claim checks spread through it, so the victim is
        // killed while the three hosts are busy with it.
        var sent = new List<string>();
        for (var i = 0; i < Messages; i++)
        {
            var json = i % (Messages / ClaimChecks) == 0 && i / (Messages / ClaimChecks) < ClaimChecks
                ? "{\"claimCheck\":{\"container\":\"" + claims.Name + "\",\"blob\":\"seed-" + (i / (Messages / ClaimChecks)) + ".json\"}}"
                : $$"""{"widgets":[{"id":"{{Guid.NewGuid()}}","property0":"p0-{{i}}","property1":"p1","property2":"p2","property3":"p3","property4":"p4","property5":"p5","property6":"p6","property7":"p7","property8":"p8","property9":"p9","createdUtc":"2026-11-23T10:00:00Z"}]}""";
            var receipt = await input.SendMessageAsync(Convert.ToBase64String(Encoding.UTF8.GetBytes(json)));
            sent.Add(receipt.Value.MessageId);
        }

        var hosts = new List<LocalHostProcess>();
        try
        {
            for (var i = 0; i < 3; i++)
            {
                hosts.Add(LocalHostProcess.Start(AppBuildOutput.Path, environment));
            }

            foreach (var host in hosts)
            {
                await host.ReadyAsync(TimeSpan.FromSeconds(120));
            }

            // Act: the victim is killed once a quarter of the outputs are out.
            var victim = hosts[1];
            var killAt = DateTime.UtcNow;
            while ((await signatures.GetPropertiesAsync()).Value.ApproximateMessagesCount < Messages / 4)
            {
                Assert.True(DateTime.UtcNow - killAt < TimeSpan.FromSeconds(120), $"not {Messages / 4} outputs within 120 s; first host's log:\n{hosts[0].Output}\n{hosts[0].Error}");
                await Task.Delay(50);
            }

            // ... and while its own log shows runs in flight (more "Executing" than "Executed" lines), not between two
            // batches: its lines reach us a little late, so one run seen in flight may be done when the kill lands; with
            // three, some are still running.
            var inFlightWait = DateTime.UtcNow;
            while (InFlightRuns(victim.Output) < 3)
            {
                Assert.True(DateTime.UtcNow - inFlightWait < TimeSpan.FromSeconds(60), $"the victim never had 3 runs in flight; its log:\n{victim.Output}");
                await Task.Delay(1);
            }

            var outputsAtKill = (await signatures.GetPropertiesAsync()).Value.ApproximateMessagesCount;
            System.Diagnostics.Process.GetProcessById(victim.Pid).Kill(); // SIGKILL on Linux: no shutdown, leases held
            var started = DateTime.UtcNow;

            var outputs = new List<JObject>();
            var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(180);
            while (outputs.Select(o => (string)o["messageId"]!).Distinct().Count() < Messages && DateTime.UtcNow < deadline)
            {
                var batch = (await signatures.ReceiveMessagesAsync(32, TimeSpan.FromSeconds(30))).Value;
                foreach (var message in batch)
                {
                    outputs.Add(JObject.Parse(Encoding.UTF8.GetString(Convert.FromBase64String(message.Body.ToString()))));
                    await signatures.DeleteMessageAsync(message.MessageId, message.PopReceipt);
                }

                if (batch.Length == 0)
                {
                    await Task.Delay(200);
                }
            }

            var drained = DateTime.UtcNow - started;
            await Task.Delay(Lease * 2); // every lease the dead host held has expired; the live hosts took the rest
            var leftOnInput = await WaitEmptyAsync(input, TimeSpan.FromSeconds(30));

            // Assert
            var byId = outputs.GroupBy(o => (string)o["messageId"]!).ToDictionary(g => g.Key, g => g.ToList());
            var lost = sent.Except(byId.Keys).ToList();
            var duplicates = byId.Values.Where(g => g.Count > 1).ToList();

            // A live host renews its leases and deletes what it answers, so a message delivered again was held by the victim.
            var redelivered = byId.Values.Count(g => g.Any(o => (int)o["dequeueCount"]! > 1));
            output.WriteLine($"{Messages} sent ({ClaimChecks} 1 MB claim checks); victim pid {victim.Pid} killed after ~{outputsAtKill} outputs; " +
                $"all outputs {drained.TotalSeconds:F1} s after the kill; {outputs.Count} outputs, {lost.Count} lost, {duplicates.Count} ids delivered more than once, {redelivered} ids dequeued again");
            Assert.True(redelivered > 0, "no message was dequeued again: the victim held none when it was killed");
            Assert.Empty(lost);
            Assert.Equal(sent.Order(), byId.Keys.Order());
            var signaturesPerId = byId.Values.Select(g => g.Select(o => (string)o["signature"]!).Distinct().Count()).ToList();
            Assert.Equal(Messages, signaturesPerId.Count);
            Assert.All(signaturesPerId, count => Assert.Equal(1, count));
            Assert.Equal(ClaimChecks, byId.Values.Count(g => (int)g[0]["widgetCount"]! == 3000));
            Assert.Equal(0, leftOnInput);
            Assert.Equal(0, (await rejected.GetPropertiesAsync()).Value.ApproximateMessagesCount);
            Assert.Equal(0, (await poison.GetPropertiesAsync()).Value.ApproximateMessagesCount);
        }
        finally
        {
            foreach (var host in hosts)
            {
                await host.DisposeAsync();
            }
        }
    }

    /// <summary>Runs a host has started and not yet finished, from its Executing / Executed lines.</summary>
    private static int InFlightRuns(string hostOutput) => StartedRun().Matches(hostOutput).Count - FinishedRun().Matches(hostOutput).Count;

    [GeneratedRegex(@"Executing '(?:Functions\.)?SignQueue'")]
    private static partial Regex StartedRun();

    [GeneratedRegex(@"Executed '(?:Functions\.)?SignQueue'")]
    private static partial Regex FinishedRun();

    /// <summary>The input queue's message count (visible or not) once it reaches 0, or what is left after <paramref name="timeout"/>.</summary>
    private static async Task<int> WaitEmptyAsync(QueueClient queue, TimeSpan timeout)
    {
        var deadline = DateTime.UtcNow + timeout;
        int count;
        while ((count = (await queue.GetPropertiesAsync()).Value.ApproximateMessagesCount) > 0 && DateTime.UtcNow < deadline)
        {
            await Task.Delay(250);
        }

        return count;
    }
}
