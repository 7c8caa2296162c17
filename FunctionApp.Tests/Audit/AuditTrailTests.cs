using System.Net.Sockets;
using System.Text;
using System.Text.Json;
using Azure.Core;
using Azure.Core.Pipeline;
using Azure.Storage.Blobs;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using Microsoft.Extensions.Time.Testing;
using Org.BouncyCastle.Math.EC.Rfc8032;
using WidgetSigning.Audit;
using WidgetSigning.Keys;
using WidgetSigning.Primitives;
using WidgetSigning.Signing;
using Xunit.Abstractions;

namespace FunctionApp.Tests.Audit;

/// <summary>The audit trail's writer against Azurite: records durable before the caller goes on, chained, sealed, grouped.</summary>
[Collection(AzuriteCollection.Name)]
public sealed class AuditTrailTests
{
    private readonly AzuriteFixture _azurite;
    private readonly ITestOutputHelper _output;

    public AuditTrailTests(AzuriteFixture azurite, ITestOutputHelper output)
    {
        _azurite = azurite;
        _output = output;
    }

    [Fact]
    public async Task RecordAsync_SignedRecord_IsInTheStoreWhenTheCallReturns()
    {
        // Arrange
        var (trail, container) = Create();
        await using var _ = trail;

        // Act
        await trail.RecordAsync(Signed("msg_first"));

        // Assert: before any other call, the stream holds the open line, the record and its seal.
        var lines = await ReadStreamLinesAsync(container);
        Assert.Equal(["open", "signed", "seal"], lines.Select(l => l.GetProperty("kind").GetString()));
        Assert.Equal("msg_first", lines[1].GetProperty("webhookId").GetString());
        Assert.Equal("partner-a", lines[1].GetProperty("receivers")[0].GetProperty("receiver").GetString());
        Assert.Equal("HMACSHA256", lines[1].GetProperty("receivers")[0].GetProperty("algorithm").GetString());
    }

    [Fact]
    public async Task RecordAsync_ConcurrentRecords_ShareDurableWritesAndChainInOrder()
    {
        // Arrange
        var (trail, container) = Create();
        await using var _ = trail;

        // Act: 200 records at once.
        await Task.WhenAll(Enumerable.Range(0, 200).Select(i => Task.Run(() => trail.RecordAsync(Signed($"msg_{i}")))));

        // Assert: every record is there once, in fewer writes than records; in each stream every line is linked to the
        // one before and every seal is signed.
        var streams = await ReadStreamsAsync(container);
        var lines = streams.SelectMany(stream => stream.Select(l => JsonDocument.Parse(l).RootElement)).ToList();
        var records = lines.Where(l => l.GetProperty("kind").GetString() == "signed").ToList();
        var seals = lines.Count(l => l.GetProperty("kind").GetString() == "seal");
        Assert.Equal(200, records.Select(r => r.GetProperty("webhookId").GetString()).Distinct().Count());
        Assert.True(seals < 200, $"{seals} durable writes for 200 records");
        var publicKey = PublicKey();
        foreach (var raw in streams)
        {
            var stream = raw.Select(l => JsonDocument.Parse(l).RootElement).ToList();
            for (var i = 0; i < stream.Count; i++)
            {
                Assert.Equal(i, stream[i].GetProperty("seq").GetInt64());
                if (i > 0)
                {
                    Assert.Equal(AuditLines.Hash(Encoding.UTF8.GetBytes(raw[i - 1])), stream[i].GetProperty("prev").GetString());
                }

                if (stream[i].GetProperty("kind").GetString() == "seal")
                {
                    var message = AuditLines.SealMessage(stream[0].GetProperty("stream").GetString()!, i, stream[i].GetProperty("prev").GetString()!);
                    var signature = Convert.FromBase64String(stream[i].GetProperty("signature").GetString()!);
                    Assert.True(Ed25519.Verify(signature, 0, publicKey, 0, message, 0, message.Length), $"seal at {i}");
                }
            }
        }
    }

    [Fact]
    public async Task RecordAsync_StoreUnreachableThenBack_RefusesMeanwhileAndRecoversWithoutRestart()
    {
        // Arrange: a transport that fails every request while the store is "down".
        var down = true;
        var options = new BlobClientOptions { Transport = new InterceptingTransport(_ =>
        {
            if (down)
            {
                throw new SocketException((int)SocketError.ConnectionRefused);
            }
        }) };
        options.Retry.MaxRetries = 0;
        var (trail, container) = Create(new AuditOptions { LocalSigningKey = TestAudit.LocalSigningKey, WriteTimeout = TimeSpan.FromSeconds(5) }, options);
        await using var _ = trail;

        // Act
        var refused = await Assert.ThrowsAsync<ProblemException>(() => trail.RecordAsync(Signed("msg_while_down")));
        down = false;
        await trail.RecordAsync(Signed("msg_after"));

        // Assert: 503 audit-unavailable with Retry-After while down; the next record is durable once it is back.
        Assert.Equal(Problems.Types.AuditUnavailable, refused.Problem.Type);
        Assert.Equal(503, refused.Problem.Status);
        Assert.NotNull(refused.Problem.RetryAfter);
        var lines = await ReadStreamLinesAsync(container);
        Assert.Contains(lines, l => l.TryGetProperty("webhookId", out var id) && id.GetString() == "msg_after");
        Assert.DoesNotContain(lines, l => l.TryGetProperty("webhookId", out var id) && id.GetString() == "msg_while_down");
    }

    [Fact]
    public async Task RecordAsync_HungStoreCallThenTheStoreAnswers_DurableAgainWithinWriteTimeoutPlusTwoSeconds()
    {
        // Arrange: one writer, on a hand-moved clock; a call sent while the store hangs never returns (as on a dropped
        // connection), calls sent after it answers again reach Azurite.
        var time = new FakeTimeProvider(DateTimeOffset.UtcNow);
        var hung = false;
        var hungCalls = 0;
        var options = new BlobClientOptions { Transport = new HangingTransport(() => hung, () => Interlocked.Increment(ref hungCalls)) };
        var audit = new AuditOptions { LocalSigningKey = TestAudit.LocalSigningKey, Writers = 1 };
        var (trail, container) = Create(audit, options, time);
        await using var _ = trail;
        await trail.RecordAsync(Signed("msg_before"));

        // Act: a record whose write hangs; the store answers again; the next record.
        hung = true;
        var during = trail.RecordAsync(Signed("msg_during"));
        await WaitUntilAsync(() => Volatile.Read(ref hungCalls) > 0);
        hung = false;
        var after = trail.RecordAsync(Signed("msg_after_hang"));
        var bound = audit.WriteTimeout + TimeSpan.FromSeconds(2);
        var moved = TimeSpan.Zero;
        while (!after.IsCompleted && moved <= bound)
        {
            time.Advance(TimeSpan.FromMilliseconds(250));
            moved += TimeSpan.FromMilliseconds(250);
            await Task.WhenAny(after, Task.Delay(20));
        }

        // Assert: the hung write was cut off at Audit:StoreTimeout, its caller refused; the next record is durable
        // within the bound of the store answering again, and the refused one was never written.
        Assert.True(after.IsCompletedSuccessfully, $"not durable {moved.TotalSeconds} s after the store answered again: {after.Exception?.InnerException?.Message}");
        var refused = await Assert.ThrowsAsync<ProblemException>(() => during);
        Assert.Equal(Problems.Types.AuditUnavailable, refused.Problem.Type);
        var ids = (await ReadStreamLinesAsync(container)).Where(l => l.GetProperty("kind").GetString() == "signed").Select(l => l.GetProperty("webhookId").GetString());
        Assert.Equal(["msg_before", "msg_after_hang"], ids);
    }

    [Fact]
    public async Task RecordAsync_CallerGaveUpBeforeAWriterTookTheRecord_RecordIsNeverWritten()
    {
        // Arrange: one writer whose write and then anchor both hang for the whole Audit:StoreTimeout, as long as a
        // caller waits, so a record queued behind them outlives its caller.
        var time = new FakeTimeProvider(DateTimeOffset.UtcNow);
        var hung = false;
        var hungCalls = 0;
        var options = new BlobClientOptions { Transport = new HangingTransport(() => hung, () => Interlocked.Increment(ref hungCalls)) };
        var audit = new AuditOptions
        {
            LocalSigningKey = TestAudit.LocalSigningKey, Writers = 1,
            AnchorInterval = TimeSpan.FromSeconds(5), StoreTimeout = TimeSpan.FromSeconds(10), WriteTimeout = TimeSpan.FromSeconds(10),
        };
        var (trail, container) = Create(audit, options, time);
        await using var _ = trail;
        await trail.RecordAsync(Signed("msg_before"));
        hung = true;
        var first = trail.RecordAsync(Signed("msg_hung"));
        await WaitUntilAsync(() => Volatile.Read(ref hungCalls) == 1);
        time.Advance(TimeSpan.FromSeconds(1));
        var queued = trail.RecordAsync(Signed("msg_given_up"));
        time.Advance(TimeSpan.FromSeconds(9));
        await WaitUntilAsync(() => Volatile.Read(ref hungCalls) == 2);

        // Act: the queued record's caller gives up while the writer is still held; then the store answers again.
        time.Advance(TimeSpan.FromSeconds(1.5));
        var givenUp = await Assert.ThrowsAsync<ProblemException>(() => queued);
        hung = false;
        time.Advance(TimeSpan.FromSeconds(9));
        var after = trail.RecordAsync(Signed("msg_after_given_up"));
        for (var moved = 0; !after.IsCompleted && moved < 40; moved++)
        {
            time.Advance(TimeSpan.FromMilliseconds(250));
            await Task.WhenAny(after, Task.Delay(20));
        }

        // Assert: the record whose caller was refused is not written once the writer is free.
        await after;
        await Assert.ThrowsAsync<ProblemException>(() => first);
        Assert.Equal(Problems.Types.AuditUnavailable, givenUp.Problem.Type);
        var ids = (await ReadStreamLinesAsync(container)).Where(l => l.GetProperty("kind").GetString() == "signed").Select(l => l.GetProperty("webhookId").GetString());
        Assert.Equal(["msg_before", "msg_after_given_up"], ids);
    }

    [Fact]
    public async Task RecordAsync_BlobServiceHangsOverASocketThenAnswers_DurableAgainWithinWriteTimeoutPlusTwoSeconds()
    {
        // Arrange: the production client options (the SDK's own retries and timeouts) over a real socket, through a
        // proxy that stops relaying and leaves its connections open, as a hung front end does.
        await using var proxy = new HangingTcpProxy(_azurite.BlobServiceUri.Port);
        var audit = new AuditOptions { LocalSigningKey = TestAudit.LocalSigningKey, WriteTimeout = TimeSpan.FromSeconds(4), StoreTimeout = TimeSpan.FromSeconds(2) };
        var name = "audit-" + Guid.NewGuid().ToString("N")[..12];
        var service = new BlobServiceClient(
            new Uri($"http://127.0.0.1:{proxy.Port}/{AzuriteFixture.AccountName}"),
            new Azure.Storage.StorageSharedKeyCredential(AzuriteFixture.AccountName, AzuriteFixture.AccountKey));
        var trail = NewTrail(audit, service.GetBlobContainerClient(name), TimeProvider.System);
        var container = new BlobServiceClient(_azurite.ConnectionString).GetBlobContainerClient(name);
        await trail.RecordAsync(Signed("msg_warm"));
        var outcomes = new System.Collections.Concurrent.ConcurrentDictionary<string, bool>();
        var answeredAgainAt = (TimeSpan?)null;
        var clock = System.Diagnostics.Stopwatch.StartNew();
        var recovered = TimeSpan.MaxValue;
        async Task SignAsync(string id)
        {
            try
            {
                await trail.RecordAsync(Signed(id));
                outcomes[id] = true;
                if (clock.Elapsed > recovered)
                {
                    lock (outcomes)
                    {
                        answeredAgainAt ??= clock.Elapsed - recovered;
                    }
                }
            }
            catch (ProblemException)
            {
                outcomes[id] = false;
            }
        }

        // Act: a record every 100 ms; the blob service hangs for 6 s (longer than the write timeout), then answers.
        var calls = new List<Task>();
        for (var i = 0; i < 140; i++)
        {
            if (i == 10)
            {
                proxy.Hang();
            }

            if (i == 70)
            {
                proxy.Answer();
                recovered = clock.Elapsed;
            }

            calls.Add(SignAsync($"msg_{i:D3}"));
            await Task.Delay(100);
        }

        await Task.WhenAll(calls);
        await trail.DisposeAsync();

        // Assert: signing is durable again within the bound; every answered record is in the store; those refused
        // that landed anyway (records without an answer) are counted.
        var stored = (await ReadStreamLinesAsync(container)).Where(l => l.GetProperty("kind").GetString() == "signed").Select(l => l.GetProperty("webhookId").GetString()!).ToHashSet();
        var bound = audit.WriteTimeout + TimeSpan.FromSeconds(2);
        Assert.True(answeredAgainAt is { } again && again <= bound, $"first durable record {answeredAgainAt?.TotalSeconds} s after the store answered again (bound {bound.TotalSeconds} s)");
        Assert.All(outcomes.Where(o => o.Value), o => Assert.Contains(o.Key, stored));
        var withoutAnswer = outcomes.Count(o => !o.Value && stored.Contains(o.Key));
        _output.WriteLine($"answered {outcomes.Count(o => o.Value)}, refused {outcomes.Count(o => !o.Value)}, refused but stored {withoutAnswer}; durable again {answeredAgainAt?.TotalMilliseconds:F0} ms after the store answered");
        Assert.True(withoutAnswer <= audit.Writers, $"{withoutAnswer} records stored whose callers were refused");
    }

    [Fact]
    public async Task RecordAsync_RefusedAndRejectedRecords_AreLoggedButNeverStored()
    {
        // Arrange
        var (trail, container) = Create();
        await using var _ = trail;

        // Act: a flood of refusals, then one signature.
        for (var i = 0; i < 500; i++)
        {
            await trail.RecordAsync(new AuditRecord { Operation = "sign", Outcome = AuditOutcome.Refused, Status = 401, Problem = Problems.Types.Unauthenticated });
        }

        await trail.RecordAsync(Signed("msg_only"));

        // Assert: the store grows only with signatures.
        var lines = await ReadStreamLinesAsync(container);
        Assert.Single(lines, l => l.GetProperty("kind").GetString() == "signed");
        Assert.Equal(3, lines.Count);
    }

    [Fact]
    public async Task DisposeAsync_AfterRecords_WritesAnAnchorHoldingTheLastSeal()
    {
        // Arrange
        var (trail, container) = Create();
        await trail.RecordAsync(Signed("msg_anchored"));

        // Act
        await trail.DisposeAsync();

        // Assert
        var anchors = new List<string>();
        await foreach (var blob in container.GetBlobsAsync(prefix: "anchors/"))
        {
            anchors.Add(blob.Name);
        }

        var anchor = JsonDocument.Parse((await container.GetBlobClient(Assert.Single(anchors)).DownloadContentAsync()).Value.Content.ToString()).RootElement;
        var raw = await ReadStreamRawLinesAsync(container);
        Assert.Equal(raw.Count - 1, anchor.GetProperty("seq").GetInt64());
        Assert.Equal(AuditLines.Hash(Encoding.UTF8.GetBytes(raw[^1])), anchor.GetProperty("head").GetString());
        Assert.Equal(AuditLines.Genesis, anchor.GetProperty("prevAnchor").GetString());
    }

    [Fact]
    public async Task RecordAsync_AppendLandedButItsAnswerLost_503ThenTheChainGoesOnAfterItAndVerifies()
    {
        // Arrange: the first append reaches the store, but its answer is replaced by a failure.
        var loseNextAppendAnswer = true;
        var options = new BlobClientOptions { Transport = new AnswerLosingTransport(request => request.Uri.Query.Contains("comp=appendblock", StringComparison.Ordinal) && loseNextAppendAnswer) };
        options.Retry.MaxRetries = 0;
        var (trail, container) = Create(new AuditOptions { LocalSigningKey = TestAudit.LocalSigningKey, Writers = 1 }, options);

        // Act
        var lost = await Assert.ThrowsAsync<ProblemException>(() => trail.RecordAsync(Signed("msg_landed_unanswered")));
        loseNextAppendAnswer = false;
        await trail.RecordAsync(Signed("msg_after_lost_answer"));
        await trail.DisposeAsync();

        // Assert: the lost write's record is in the chain (a record whose caller saw a 503), and the checker, written
        // from the format alone, finds the whole chain sound.
        Assert.Equal(Problems.Types.AuditUnavailable, lost.Problem.Type);
        var lines = await ReadStreamLinesAsync(container);
        Assert.Equal(["msg_landed_unanswered", "msg_after_lost_answer"], lines.Where(l => l.GetProperty("kind").GetString() == "signed").Select(l => l.GetProperty("webhookId").GetString()));
        var verify = await AuditTrailTool.RunAsync(_azurite.ConnectionString, "verify", "--container", container.Name, "--public-key", PublicKeyText());
        Assert.True(verify.ExitCode == 0, verify.Output + verify.Error);
        Assert.Contains("chain holds", verify.Output, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RecordAsync_ManyConcurrentRecordsAndAnchors_TheCheckerFindsTheChainSoundAndEachRecord()
    {
        // Arrange: one chain on a hand-moved clock, so each round of records is followed by exactly one anchor.
        var time = new FakeTimeProvider(DateTimeOffset.UtcNow);
        var audit = new AuditOptions { LocalSigningKey = TestAudit.LocalSigningKey, AnchorInterval = TimeSpan.FromSeconds(5), Writers = 1 };
        var (trail, container) = Create(audit, time: time);

        // Act: three rounds of 50 concurrent records, the anchor interval passing after each.
        for (var round = 0; round < 3; round++)
        {
            await Task.WhenAll(Enumerable.Range(0, 50).Select(i => Task.Run(() => trail.RecordAsync(Signed($"msg_r{round}_{i}")))));
            time.Advance(audit.AnchorInterval);
            var anchors = round + 1;
            await WaitUntilAsync(() => CountAsync(container, "anchors/").GetAwaiter().GetResult() == anchors);
        }

        await trail.DisposeAsync();
        var verify = await AuditTrailTool.RunAsync(_azurite.ConnectionString, "verify", "--container", container.Name, "--public-key", PublicKeyText());
        var find = await AuditTrailTool.RunAsync(_azurite.ConnectionString, "find", "msg_r1_7", "--container", container.Name);

        // Assert: one anchor a round and none at the stop (its head was anchored already); every record found.
        Assert.True(verify.ExitCode == 0, verify.Output + verify.Error);
        Assert.Contains("150 records", verify.Output, StringComparison.Ordinal);
        Assert.Contains(" 3 anchors", verify.Output, StringComparison.Ordinal);
        Assert.Equal(3, await CountAsync(container, "anchors/"));
        Assert.True(find.ExitCode == 0, find.Output + find.Error);
        Assert.Contains("msg_r1_7", find.Output, StringComparison.Ordinal);
    }

    private static async Task<int> CountAsync(BlobContainerClient container, string prefix)
    {
        var count = 0;
        await foreach (var _ in container.GetBlobsAsync(prefix: prefix))
        {
            count++;
        }

        return count;
    }

    private (AuditTrail Trail, BlobContainerClient Container) Create(AuditOptions? options = null, BlobClientOptions? clientOptions = null, TimeProvider? time = null)
    {
        options ??= new AuditOptions { LocalSigningKey = TestAudit.LocalSigningKey };
        var name = "audit-" + Guid.NewGuid().ToString("N")[..12];
        var container = new BlobServiceClient(_azurite.ConnectionString, clientOptions ?? new BlobClientOptions()).GetBlobContainerClient(name);
        var reader = new BlobServiceClient(_azurite.ConnectionString).GetBlobContainerClient(name);
        return (NewTrail(options, container, time ?? TimeProvider.System), reader);
    }

    private static AuditTrail NewTrail(AuditOptions options, BlobContainerClient container, TimeProvider time) => new(
        new AuditLog(NullLoggerFactory.Instance),
        Options.Create(options),
        () => new AuditBlobStore(container),
        new AuditSigningKey(options, null),
        time,
        TestServices.Metrics(),
        NullLogger<AuditTrail>.Instance,
        "test-" + Guid.NewGuid().ToString("N")[..8]);

    private static async Task WaitUntilAsync(Func<bool> condition)
    {
        var waited = System.Diagnostics.Stopwatch.StartNew();
        while (!condition())
        {
            Assert.True(waited.Elapsed < TimeSpan.FromSeconds(30), "the condition never held");
            await Task.Delay(10);
        }
    }

    private static AuditRecord Signed(string webhookId) => new()
    {
        Operation = "queue-sign",
        Outcome = AuditOutcome.Signed,
        Queue = "widget-envelopes",
        MessageId = Guid.NewGuid().ToString(),
        SignedBy = [new ReceiverSignature(ReceiverId.Parse("partner-a"), "local", [], null)],
        WebhookId = webhookId,
        WidgetCount = 1,
        CanonicalLength = 492,
        CanonicalSha256 = new string('a', 64),
    };

    private static string PublicKeyText()
    {
        Assert.True(AuditSigningKey.TryParse(TestAudit.LocalSigningKey, out var key, out _));
        return key!.PublicKeyText;
    }

    private static byte[] PublicKey()
    {
        Assert.True(AuditSigningKey.TryParse(TestAudit.LocalSigningKey, out var key, out _));
        return key!.PublicKey.ToArray();
    }

    private static async Task<List<List<string>>> ReadStreamsAsync(BlobContainerClient container)
    {
        var streams = new List<List<string>>();
        await foreach (var blob in container.GetBlobsAsync(prefix: "streams/"))
        {
            var text = (await container.GetBlobClient(blob.Name).DownloadContentAsync()).Value.Content.ToString();
            streams.Add([.. text.Split('\n', StringSplitOptions.RemoveEmptyEntries)]);
        }

        return streams;
    }

    private static async Task<List<string>> ReadStreamRawLinesAsync(BlobContainerClient container) =>
        (await ReadStreamsAsync(container)).SelectMany(s => s).ToList();

    private static async Task<List<JsonElement>> ReadStreamLinesAsync(BlobContainerClient container) =>
        (await ReadStreamRawLinesAsync(container)).Select(l => JsonDocument.Parse(l).RootElement).ToList();

    // The real transport, except that a request sent while the store hangs is never answered: it waits until its call
    // is cancelled, as on a connection the far end stopped reading.
    private sealed class HangingTransport(Func<bool> hung, Action entered) : HttpPipelineTransport
    {
        private readonly HttpClientTransport _inner = new();

        public override Request CreateRequest() => _inner.CreateRequest();

        public override void Process(HttpMessage message) => ProcessAsync(message).AsTask().GetAwaiter().GetResult();

        public override async ValueTask ProcessAsync(HttpMessage message)
        {
            if (hung())
            {
                entered();
                await Task.Delay(Timeout.Infinite, message.CancellationToken);
            }

            await _inner.ProcessAsync(message);
        }
    }

    // The real transport, which sends the request and then, when told to, drops the answer and fails instead.
    private sealed class AnswerLosingTransport(Func<Request, bool> loseAnswer) : HttpPipelineTransport
    {
        private readonly HttpClientTransport _inner = new();

        public override Request CreateRequest() => _inner.CreateRequest();

        public override void Process(HttpMessage message) => ProcessAsync(message).AsTask().GetAwaiter().GetResult();

        public override async ValueTask ProcessAsync(HttpMessage message)
        {
            var lose = loseAnswer(message.Request);
            await _inner.ProcessAsync(message);
            if (lose)
            {
                throw new IOException("The connection was reset after the request was sent.");
            }
        }
    }
}
