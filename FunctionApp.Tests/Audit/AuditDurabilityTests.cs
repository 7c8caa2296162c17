using System.Diagnostics;
using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using Azure.Storage.Blobs;
using Azure.Storage.Queues;
using FunctionApp.Tests.Hosting;
using FunctionApp.Tests.Isolated;
using FunctionApp.Tests.TestKit;
using Newtonsoft.Json.Linq;
using WidgetSigning.Primitives;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Audit;

/// <summary>
/// "A signature leaves only once its record is durable" (docs/audit-trail.md), over real sockets with both apps in
/// their local hosts (tools/WorkerHost, tools/LocalHost) against Azurite, the audit store on, each test with its own
/// container: the container is read the moment an answer (or an output message) arrives, before anything else, and
/// must already hold its record. With the blob service unreachable, nothing signed leaves: HTTP answers 503
/// <c>audit-unavailable</c>, and a queue message waits in its input queue, never poisoned, until the store is back.
/// </summary>
public sealed class AuditDurabilityTests : IClassFixture<IsolatedQueueTests.NewerApiAzuriteFixture>
{
    private const int AnswersPerCase = 3;
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    private readonly AzuriteFixture _azurite;
    private readonly ITestOutputHelper _output;

    public AuditDurabilityTests(IsolatedQueueTests.NewerApiAzuriteFixture azurite, ITestOutputHelper output)
    {
        _azurite = azurite;
        _output = output;
    }

    [Theory]
    [InlineData("output=canonical", "default:HMACSHA256")]
    [InlineData("receiver=partner-a&receiver=partner-b", "partner-a:HMACSHA256,partner-b:HMACSHA256")]
    [InlineData("receiver=partner-c", "partner-c:Ed25519")]
    public async Task Sign_IsolatedApp_EachAnswersRecordIsDurableWhenTheAnswerArrives(string query, string signedBy)
    {
        // Arrange
        var container = ContainerName();
        await using var host = await IsolatedAppHost.StartAsync(IsolatedAppHost.Settings(_azurite.ConnectionString, new Dictionary<string, string>
        {
            ["Audit:Container"] = container,
        }));

        // Act and Assert
        await AssertEachAnswerDurableAsync(host.BaseAddress, query, signedBy, container, () => host.Output);
    }

    [Theory]
    [InlineData("", "default:HMACSHA256")]
    [InlineData("output=canonical", "default:HMACSHA256")]
    public async Task Sign_InProcessAppWithTheStoreOn_EachAnswersRecordIsDurableWhenTheAnswerArrives(string query, string signedBy)
    {
        // Arrange: setting Audit__… keeps LocalHostProcess from turning the store off.
        var container = ContainerName();
        await using var host = LocalHostProcess.Start(TestKit.AppBuildOutput.Path, InProcessEnvironment(_azurite.ConnectionString, new Dictionary<string, string>
        {
            ["Audit__Container"] = container,
        }));
        var baseAddress = await host.ReadyAsync(TimeSpan.FromSeconds(90));

        // Act and Assert
        await AssertEachAnswerDurableAsync(baseAddress, query, signedBy, container, () => host.Output + host.Error);
    }

    [Fact]
    public async Task SignQueue_IsolatedAppClaimCheckForTwoReceivers_RecordIsDurableWhenTheOutputIsVisible()
    {
        // Arrange
        var container = ContainerName();
        var prefix = "ad" + Guid.NewGuid().ToString("N")[..12];
        var settings = new Dictionary<string, string>(QueueTestResources.Settings(prefix))
        {
            ["AzureFunctionsJobHost__extensions__queues__maxPollingInterval"] = "00:00:00.500",
            ["Audit:Container"] = container,
        };
        var resources = new QueueTestResources(new QueueServiceClient(_azurite.ConnectionString), new BlobServiceClient(_azurite.ConnectionString), prefix);
        await resources.CreateAsync();
        var vector = Vector.Load("one-widget");
        await resources.Claims.UploadBlobAsync("order-1.json", new BinaryData(vector.Input));
        var message = new JObject
        {
            ["claimCheck"] = new JObject { ["container"] = resources.Claims.Name, ["blob"] = "order-1.json" },
            ["receivers"] = new JArray("partner-a", "partner-c"),
        }.ToString(Newtonsoft.Json.Formatting.None);
        await using var host = await IsolatedAppHost.StartAsync(IsolatedAppHost.Settings(_azurite.ConnectionString, settings));

        // Act: the output is read the moment it is visible, and the container right after it.
        var messageId = (await resources.Input.SendMessageAsync(Convert.ToBase64String(Encoding.UTF8.GetBytes(message)))).Value.MessageId;
        var output = await ReceiveOneAsync(resources.Output, Patience);
        Assert.True(output is not null, $"no output message within {Patience}:\n{Tail(host.Output)}");
        var records = await ReadSignedRecordsAsync(container);

        // Assert
        Assert.Equal(messageId, output.Value<string>("messageId"));
        var webhookId = output["webhook"]!.Value<string>("id")!;
        Assert.StartsWith("queue_", webhookId, StringComparison.Ordinal);
        var record = Assert.Single(records, r => r.MessageId == messageId);
        Assert.Equal("queue-sign", record.Operation);
        Assert.Equal(resources.Input.Name, record.Queue);
        Assert.Equal(webhookId, record.WebhookId);
        Assert.Equal("partner-a:HMACSHA256,partner-c:Ed25519", record.SignedBy);
        var canonical = Convert.FromBase64String(output.Value<string>("canonicalBase64")!);
        Assert.Equal(vector.Canonical, canonical);
        Assert.Equal(canonical.Length, record.CanonicalLength);
        Assert.Equal(Sha256Hex(canonical), record.CanonicalSha256);
    }

    [Fact]
    public async Task Sign_IsolatedAppAuditStoreUnreachable_Answers503AuditUnavailableAndNothingSigned()
    {
        // Arrange: WidgetStorage's blob endpoint is a loopback port nothing listens on; its queues and tables work.
        await using var host = await IsolatedAppHost.StartAsync(IsolatedAppHost.Settings(_azurite.ConnectionString, new Dictionary<string, string>(UnreachableStoreSettings(':'))
        {
            ["WidgetStorage"] = StorageWithBlobsOn(Loopback.FreePort()),
        }));

        // Act
        var response = await SignAsync(host.BaseAddress, "output=canonical&receiver=partner-a&receiver=partner-c", Vector.Load("one-widget").Input);

        // Assert
        AssertAuditUnavailable(response, host.Output);
    }

    [Fact]
    public async Task Sign_InProcessAppAuditStoreUnreachable_Answers503AuditUnavailableAndNothingSigned()
    {
        // Arrange
        var environment = InProcessEnvironment(StorageWithBlobsOn(Loopback.FreePort()), UnreachableStoreSettings('_'));
        environment["AzureWebJobsStorage"] = _azurite.ConnectionString;
        await using var host = LocalHostProcess.Start(TestKit.AppBuildOutput.Path, environment);
        var baseAddress = await host.ReadyAsync(TimeSpan.FromSeconds(90));

        // Act
        var response = await SignAsync(baseAddress, "output=canonical&receiver=partner-a&receiver=partner-c", Vector.Load("one-widget").Input);

        // Assert
        AssertAuditUnavailable(response, host.Output + host.Error);
    }

    [Fact]
    public async Task SignQueue_IsolatedAppAuditStoreUnreachableThenBack_MessageWaitsUnpoisonedThenIsForwardedWithARecord()
    {
        // Arrange: the blob service behind a relay that is cut before the app starts. maxDequeueCount 1 makes any failed
        // run a poisoning, so the message is only still there if the outage released it rather than failing the run.
        var container = ContainerName();
        var prefix = "ar" + Guid.NewGuid().ToString("N")[..12];
        await using var relay = new SeverableTcpRelay(_azurite.BlobServiceUri.Port);
        await relay.CutAsync();
        var settings = new Dictionary<string, string>(QueueTestResources.Settings(prefix).Concat(UnreachableStoreSettings(':')))
        {
            ["AzureFunctionsJobHost__extensions__queues__maxPollingInterval"] = "00:00:00.500",
            ["AzureFunctionsJobHost__extensions__queues__maxDequeueCount"] = "1",
            ["Queues:MaxDequeueCount"] = "1",
            ["Audit:Container"] = container,
            ["WidgetStorage"] = StorageWithBlobsOn(relay.Port),
        };
        var resources = new QueueTestResources(new QueueServiceClient(_azurite.ConnectionString), new BlobServiceClient(_azurite.ConnectionString), prefix);
        await resources.CreateAsync();
        await using var host = await IsolatedAppHost.StartAsync(IsolatedAppHost.Settings(_azurite.ConnectionString, settings));
        var vector = Vector.Load("one-widget");

        // Act: enqueue during the outage; let it last three rounds of WriteTimeout + RetryAfter after the store's first
        // failure; then restore the blob service on the same port.
        var messageId = (await resources.Input.SendMessageAsync(Convert.ToBase64String(vector.Input))).Value.MessageId;
        var failed = Stopwatch.StartNew();
        while (!host.Output.Contains("Audit store write to", StringComparison.Ordinal) && failed.Elapsed < Patience)
        {
            await Task.Delay(50);
        }

        Assert.True(host.Output.Contains("Audit store write to", StringComparison.Ordinal), $"no failed audit write (event 7101) within {Patience}:\n{Tail(host.Output)}");
        await Task.Delay(TimeSpan.FromSeconds(9));
        var outputsDuringOutage = await CountAsync(resources.Output);
        var poisonedDuringOutage = await CountAsync(resources.Poison);
        var rejectedDuringOutage = await CountAsync(resources.Rejected);
        var inputDuringOutage = await CountAsync(resources.Input);
        relay.Restore();
        var output = await ReceiveOneAsync(resources.Output, Patience);
        Assert.True(output is not null, $"no output message within {Patience} of the store coming back:\n{Tail(host.Output)}");
        var records = await ReadSignedRecordsAsync(container);
        var drained = await QueueFunctionHost.WaitEmptyAsync(resources.Input, Patience);

        // Assert: nothing left, nothing was poisoned or rejected while the store was down; once back, the message is
        // signed and forwarded, its record durable when the output became visible.
        Assert.Equal(0, outputsDuringOutage);
        Assert.Equal(0, poisonedDuringOutage);
        Assert.Equal(0, rejectedDuringOutage);
        Assert.Equal(1, inputDuringOutage);
        Assert.Equal(messageId, output.Value<string>("messageId"));
        var record = Assert.Single(records, r => r.MessageId == messageId);
        Assert.Equal(output["webhook"]!.Value<string>("id"), record.WebhookId);
        Assert.Equal(Sha256Hex(vector.Canonical), record.CanonicalSha256);
        Assert.True(drained, "the input queue should be empty once the message was forwarded");
        Assert.Equal(0, await CountAsync(resources.Poison));
    }

    /// <summary>
    /// <see cref="AnswersPerCase"/> signatures in turn, each on its own connection; the container is read as soon as each
    /// answer is in, and must hold a <c>signed</c> record of its webhook-id naming the receivers and algorithms, with
    /// the SHA-256 and length of the canonical bytes (the body itself with <c>output=canonical</c>).
    /// </summary>
    private async Task AssertEachAnswerDurableAsync(Uri baseAddress, string query, string signedBy, string container, Func<string> hostOutput)
    {
        var vector = Vector.Load("one-widget");
        var canonicalOutput = query.Contains("output=canonical", StringComparison.Ordinal);
        for (var i = 0; i < AnswersPerCase; i++)
        {
            var response = await SignAsync(baseAddress, query, vector.Input);
            var records = await ReadSignedRecordsAsync(container);

            Assert.True(response.Status == 200, $"answer {i}: {response.Status} {response.Text}\n{Tail(hostOutput())}");
            var webhookId = canonicalOutput ? response.Headers["webhook-id"] : response.Json["webhook"]!.Value<string>("id")!;
            var canonical = canonicalOutput ? response.Body : vector.Canonical;
            if (canonicalOutput)
            {
                Assert.Equal(vector.Canonical, response.Body);
            }

            var record = records.SingleOrDefault(r => r.WebhookId == webhookId);
            Assert.True(record is not null, $"answer {i} ({webhookId}) has no durable record when it arrives; the container holds {records.Count}");
            Assert.Equal("sign", record.Operation);
            Assert.Equal(signedBy, record.SignedBy);
            Assert.Equal(canonical.Length, record.CanonicalLength);
            Assert.Equal(Sha256Hex(canonical), record.CanonicalSha256);
        }
    }

    private static void AssertAuditUnavailable(RawHttpResponse response, string hostOutput)
    {
        Assert.True(response.Status == 503, $"{response.Status} {response.Text}\n{Tail(hostOutput)}");
        Assert.Equal("3", response.Headers["Retry-After"]);
        Assert.Equal("application/problem+json", response.MediaType);
        Assert.Equal(Problems.Types.AuditUnavailable, response.Json.Value<string>("type"));
        var leaked = response.Headers.Keys.Where(h =>
            h.StartsWith("webhook-", StringComparison.OrdinalIgnoreCase) ||
            h.StartsWith("X-Signature", StringComparison.OrdinalIgnoreCase) ||
            h.StartsWith("X-Widget-Count", StringComparison.OrdinalIgnoreCase) ||
            h.StartsWith("X-Canonical-Length", StringComparison.OrdinalIgnoreCase)).ToList();
        Assert.True(leaked.Count == 0, $"a refused signature answered {string.Join(", ", leaked)}");
        Assert.DoesNotContain("signature", response.Text, StringComparison.OrdinalIgnoreCase);
        Assert.DoesNotContain("\"widgets\"", response.Text, StringComparison.Ordinal);
    }

    /// <summary>A short write and store timeout, so a refusal comes within 2 s; <c>Retry-After</c> 3 s, to tell it from defaults.</summary>
    private static Dictionary<string, string> UnreachableStoreSettings(char separator)
    {
        var join = separator == ':' ? ":" : "__";
        return new Dictionary<string, string>(StringComparer.Ordinal)
        {
            ["Audit" + join + "Container"] = ContainerName(),
            ["Audit" + join + "WriteTimeout"] = "00:00:02",
            ["Audit" + join + "StoreTimeout"] = "00:00:01",
            ["Audit" + join + "RetryAfter"] = "00:00:03",
        };
    }

    /// <summary>The in-process app's local settings for tools/LocalHost, on <paramref name="storage"/>, with <paramref name="extra"/>.</summary>
    private static Dictionary<string, string> InProcessEnvironment(string storage, IReadOnlyDictionary<string, string> extra)
    {
        var environment = new Dictionary<string, string>(StringComparer.Ordinal)
        {
            ["Signing:LocalKey"] = Vector.KeyBase64,
            ["AZURE_FUNCTIONS_ENVIRONMENT"] = "Development",
            ["Auth:Disabled"] = "true",
            ["AzureWebJobsStorage"] = storage,
            ["WidgetStorage"] = storage,
        };
        foreach (var (name, value) in extra)
        {
            environment[name] = value;
        }

        return environment;
    }

    /// <summary>Azurite's account with its queue and table services, and its blob service on 127.0.0.1:<paramref name="blobPort"/>.</summary>
    private string StorageWithBlobsOn(int blobPort) =>
        $"DefaultEndpointsProtocol=http;AccountName={AzuriteFixture.AccountName};AccountKey={AzuriteFixture.AccountKey};" +
        $"BlobEndpoint=http://127.0.0.1:{blobPort.ToString(CultureInfo.InvariantCulture)}/{AzuriteFixture.AccountName};" +
        $"QueueEndpoint={_azurite.QueueServiceUri};TableEndpoint={_azurite.TableServiceUri};";

    private static string ContainerName() => "audit-durable-" + Guid.NewGuid().ToString("N")[..12];

    /// <summary>POST /api/sign?<paramref name="query"/> on a connection of its own, read off the socket.</summary>
    private static async Task<RawHttpResponse> SignAsync(Uri baseAddress, string query, byte[] body)
    {
        var target = query.Length == 0 ? "/api/sign" : "/api/sign?" + query;
        var head = $"POST {target} HTTP/1.1\r\nHost: {baseAddress.Authority}\r\nContent-Type: application/json\r\nContent-Length: {body.Length.ToString(CultureInfo.InvariantCulture)}\r\nConnection: close\r\n\r\n";
        using var client = await RawHttpClient.ConnectAsync(baseAddress);
        await client.SendAsync([.. Encoding.ASCII.GetBytes(head), .. body]);
        var outcome = await client.ReadResponseAsync(Patience);
        return outcome.Response ?? throw new Xunit.Sdk.XunitException($"no answer to {target}: {outcome.Failure}");
    }

    /// <summary>Polls <paramref name="queue"/> every few milliseconds and deletes the first message, decoded; null after <paramref name="timeout"/>.</summary>
    private static async Task<JObject?> ReceiveOneAsync(QueueClient queue, TimeSpan timeout)
    {
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < timeout)
        {
            var message = (await queue.ReceiveMessageAsync()).Value;
            if (message is not null)
            {
                await queue.DeleteMessageAsync(message.MessageId, message.PopReceipt);
                return JObject.Parse(Encoding.UTF8.GetString(Convert.FromBase64String(message.Body.ToString())));
            }

            await Task.Delay(5);
        }

        return null;
    }

    private static async Task<int> CountAsync(QueueClient queue) => (await queue.GetPropertiesAsync()).Value.ApproximateMessagesCount;

    /// <summary>Every <c>signed</c> line of every <c>streams/</c> blob in <paramref name="containerName"/>, read with the Azure SDK.</summary>
    private async Task<List<DurableRecord>> ReadSignedRecordsAsync(string containerName)
    {
        var container = new BlobServiceClient(_azurite.ConnectionString).GetBlobContainerClient(containerName);
        var records = new List<DurableRecord>();
        if (!(await container.ExistsAsync()).Value)
        {
            return records;
        }

        await foreach (var blob in container.GetBlobsAsync(prefix: "streams/"))
        {
            var content = (await container.GetBlobClient(blob.Name).DownloadContentAsync()).Value.Content.ToString();
            foreach (var line in content.Split('\n', StringSplitOptions.RemoveEmptyEntries))
            {
                using var json = JsonDocument.Parse(line);
                var root = json.RootElement;
                if (root.GetProperty("kind").GetString() != "signed")
                {
                    continue;
                }

                var signedBy = string.Join(",", root.GetProperty("receivers").EnumerateArray()
                    .Select(r => r.GetProperty("receiver").GetString() + ":" + r.GetProperty("algorithm").GetString()));
                records.Add(new DurableRecord(
                    Text(root, "operation"),
                    Text(root, "webhookId"),
                    Text(root, "queue"),
                    Text(root, "messageId"),
                    signedBy,
                    root.GetProperty("canonicalLength").GetInt64(),
                    Text(root, "canonicalSha256")));
            }
        }

        _output.WriteLine($"{containerName}: {records.Count} signed records");
        return records;

        static string? Text(JsonElement element, string name) =>
            element.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.String ? value.GetString() : null;
    }

    private static string Sha256Hex(byte[] bytes) => Convert.ToHexString(SHA256.HashData(bytes)).ToLowerInvariant();

    private static string Tail(string text) => text.Length > 20_000 ? text[^20_000..] : text;

    private sealed record DurableRecord(string? Operation, string? WebhookId, string? Queue, string? MessageId, string SignedBy, long CanonicalLength, string? CanonicalSha256);
}
