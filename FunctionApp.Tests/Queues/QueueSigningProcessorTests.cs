using System.Security.Cryptography;
using System.Text;
using WidgetSigning.Queues;
using WidgetSigning.Signing;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Azure;
using Azure.Storage;
using Azure.Storage.Blobs;
using Azure.Storage.Queues;
using Azure.Storage.Sas;
using Azure.Storage.Blobs.Specialized;
using Newtonsoft.Json.Linq;
using WidgetSigning.Primitives;

namespace FunctionApp.Tests.Queues;

/// <summary>The host-independent processor against Azurite, wired by the same registration the app uses.</summary>
[Collection(AzuriteCollection.Name)]
public sealed class QueueSigningProcessorTests
{
    // Each receiver's own key, random per run: a signature can only match if it was made with the right one.
    private static readonly byte[] PartnerAKey = RandomNumberGenerator.GetBytes(32);
    private static readonly byte[] PartnerBKey = RandomNumberGenerator.GetBytes(32);

    private readonly AzuriteFixture _azurite;

    public QueueSigningProcessorTests(AzuriteFixture azurite)
    {
        _azurite = azurite;
    }

    [Theory]
    [InlineData(0, false)]
    [InlineData(QueueOptions.MaxInlineCanonicalBytes, true)]
    public async Task SignAsync_InlineThreshold_DecidesInlineOrBlob(int threshold, bool inline)
    {
        // Arrange
        var (processor, names) = Create(new() { ["Queues:InlineCanonicalMaxBytes"] = threshold.ToString(System.Globalization.CultureInfo.InvariantCulture) });
        var vector = Vector.Load("one-widget");

        // Act
        var signed = await processor.SignAsync(new SigningQueueMessage("m1", 1, null, vector.Input), CancellationToken.None);

        // Assert
        Assert.Equal(vector.SignatureHex, signed.Signature);
        Assert.Equal(inline, signed.CanonicalBase64 is not null);
        Assert.Equal(!inline, signed.CanonicalBlob is not null);
        if (!inline)
        {
            Assert.Equal(new BlobReference(names.WidgetCanonicalContainer, "m1/" + vector.SignatureHex + ".json"), signed.CanonicalBlob);
            Assert.Equal(vector.Canonical, await DownloadAsync(signed.CanonicalBlob!));
        }
    }

    [Theory]
    [InlineData("Plain")]
    [InlineData("Webhook")]
    [InlineData("Both")]
    public async Task SignAsync_QueueSignatureForms_OutputCarriesOnlyThoseFormsEachMatchingTheContract(string forms)
    {
        // Arrange
        var (processor, _) = Create(new() { ["Queues:SignatureForms"] = forms });
        var vector = Vector.Load("escapes-and-unicode");
        var setting = Enum.Parse<SignatureForms>(forms);

        // Act
        var signed = await processor.SignAsync(new SigningQueueMessage("m-forms", 1, null, vector.Input), CancellationToken.None);
        var json = JObject.Parse(signed.ToJson());

        // Assert: the plain form is the known answer; the Standard Webhooks one the spec's formula over the same bytes.
        Assert.Equal(vector.Canonical, Convert.FromBase64String(signed.CanonicalBase64!));
        Assert.Equal("local", (string?)json["keyId"]);
        if (setting.HasPlain())
        {
            Assert.Equal(vector.SignatureHex, (string?)json["signature"]);
            Assert.Equal(vector.SignatureHex, (string?)Assert.Single(json["signatures"]!)["signature"]);
        }
        else
        {
            Assert.Null(json["signature"]);
            Assert.Null(json["signatures"]);
        }

        if (setting.HasWebhook())
        {
            var id = DerivedWebhookId.ForQueueMessage("m-forms", vector.Canonical);
            var timestamp = (string)json["webhook"]!["timestamp"]!;
            Assert.Equal(id, (string?)json["webhook"]!["id"]);
            Assert.Equal(DerivedWebhookId.WebhookSignature(Vector.Key, id, timestamp, vector.Canonical), (string?)json["webhook"]!["signature"]);
        }
        else
        {
            Assert.Null(json["webhook"]);
        }
    }

    [Fact]
    public async Task SignAsync_WebhookOnlyIntoABlob_NameBoundToTheContentAndARedeliveryFindsTheSameBlob()
    {
        // Arrange: no hex signature to name the blob after; the webhook id (message id + SHA-256 of the bytes) names it.
        var (processor, names) = Create(new() { ["Queues:SignatureForms"] = "Webhook", ["Queues:InlineCanonicalMaxBytes"] = "0" });
        var vector = Vector.Load("one-widget");
        var other = Vector.Load("escapes-and-unicode");

        // Act
        var first = await processor.SignAsync(new SigningQueueMessage("m-webhook", 1, null, vector.Input), CancellationToken.None);
        var redelivered = await processor.SignAsync(new SigningQueueMessage("m-webhook", 2, null, vector.Input), CancellationToken.None);
        var changed = await processor.SignAsync(new SigningQueueMessage("m-webhook", 3, null, other.Input), CancellationToken.None);

        // Assert
        var id = DerivedWebhookId.ForQueueMessage("m-webhook", vector.Canonical);
        Assert.Equal(new BlobReference(names.WidgetCanonicalContainer, $"m-webhook/{id}.json"), first.CanonicalBlob);
        Assert.Equal(first.CanonicalBlob, redelivered.CanonicalBlob);
        Assert.NotEqual(first.CanonicalBlob, changed.CanonicalBlob);
        Assert.Equal(vector.Canonical, await DownloadAsync(first.CanonicalBlob!));
        Assert.Equal(other.Canonical, await DownloadAsync(changed.CanonicalBlob!));
        Assert.Null(first.Signature);
    }

    [Fact]
    public async Task SignAsync_QueueMessageIdEqualToAnHttpIdAttack_WebhookIdInTheQueueNamespaceBoundToContent()
    {
        // Arrange: a message id that equals an id an HTTP caller could be given, and a redelivery.
        var (processor, _) = Create([]);
        var vector = Vector.Load("one-widget");
        var other = Vector.Load("escapes-and-unicode");
        var httpId = DerivedWebhookId.ForIdempotencyKey("m-http", vector.Canonical);

        // Act
        var first = await processor.SignAsync(new SigningQueueMessage("m-q", 1, null, vector.Input), CancellationToken.None);
        var redelivered = await processor.SignAsync(new SigningQueueMessage("m-q", 2, null, vector.Input), CancellationToken.None);
        var changed = await processor.SignAsync(new SigningQueueMessage("m-q", 3, null, other.Input), CancellationToken.None);
        var named = await processor.SignAsync(new SigningQueueMessage(httpId, 1, null, vector.Input), CancellationToken.None);

        // Assert: queue_ ids, the same for a redelivery, different for different bytes, never an HTTP id.
        Assert.Equal(DerivedWebhookId.ForQueueMessage("m-q", vector.Canonical), first.Webhook!.Id);
        Assert.Equal(first.Webhook.Id, redelivered.Webhook!.Id);
        Assert.NotEqual(first.Webhook.Id, changed.Webhook!.Id);
        Assert.StartsWith("queue_", named.Webhook!.Id, StringComparison.Ordinal);
        Assert.NotEqual(httpId, named.Webhook.Id);
    }

    [Fact]
    public async Task SignAsync_ClaimBlobOverTheLimit_IsRejectedNamingTheSetting()
    {
        // Arrange
        var (processor, names) = Create(new() { ["Queues:MaxClaimCheckBytes"] = "1000" });
        var seed = Vector.Load("seed-3000-widgets");
        var container = Container(names.WidgetClaimsContainer);
        await container.CreateIfNotExistsAsync();
        await container.GetBlobClient("big.json").UploadAsync(new BinaryData(seed.Input));
        var message = new SigningQueueMessage("m2", 1, null, Encoding.UTF8.GetBytes("{\"claimCheck\":{\"blob\":\"big.json\"}}"));

        // Act
        var error = await ProblemAssert.ThrowsAsync(Problems.Types.MessageRejected, () => processor.SignAsync(message, CancellationToken.None));

        // Assert
        Assert.Contains("Queues:MaxClaimCheckBytes", error.Message, StringComparison.Ordinal);
        Assert.Equal("$.claimCheck.blob", error.Problem.JsonPath);
    }

    [Fact]
    public async Task SignAsync_SeedByClaimCheck_ReturnsEveryPooledStream()
    {
        // Arrange
        var (processor, names, services) = CreateWithServices(new());
        var seed = Vector.Load("seed-3000-widgets");
        var container = Container(names.WidgetClaimsContainer);
        await container.CreateIfNotExistsAsync();
        await container.GetBlobClient("seed.json").UploadAsync(new BinaryData(seed.Input));
        var pool = services.GetRequiredService<Microsoft.IO.RecyclableMemoryStreamManager>();
        var message = new SigningQueueMessage("m3", 1, null, Encoding.UTF8.GetBytes("{\"claimCheck\":{\"blob\":\"seed.json\"}}"));

        // Act
        var signed = await processor.SignAsync(message, CancellationToken.None);

        // Assert: the blob went through the pool and every stream went back.
        Assert.Equal(seed.SignatureHex, signed.Signature);
        Assert.Equal(seed.Canonical, await DownloadAsync(signed.CanonicalBlob!));
        Assert.Equal(0, pool.SmallPoolInUseSize);
        Assert.True(pool.SmallPoolFreeSize >= seed.Input.Length, "the claim blob should have been read into pooled blocks");
        Assert.Equal(0, pool.LargePoolInUseSize);
    }

    [Fact]
    public async Task SignAsync_SeedByClaimCheck_UploadsTheCanonicalBytesFromTheSigningStreamWithoutASecondPooledCopy()
    {
        // Arrange: an upload from a second pooled copy of the canonical bytes doubles them (192 MiB per 96 MiB envelope).
        var (processor, names, services) = CreateWithServices(new());
        var seed = Vector.Load("seed-3000-widgets");
        var container = Container(names.WidgetClaimsContainer);
        await container.CreateIfNotExistsAsync();
        await container.GetBlobClient("seed-stream.json").UploadAsync(new BinaryData(seed.Input));
        var pool = services.GetRequiredService<Microsoft.IO.RecyclableMemoryStreamManager>();
        var created = new System.Collections.Concurrent.ConcurrentBag<string?>();
        pool.StreamCreated += (_, e) => created.Add(e.Tag);
        var message = new SigningQueueMessage("m8", 1, null, Encoding.UTF8.GetBytes("{\"claimCheck\":{\"blob\":\"seed-stream.json\"}}"));

        // Act
        var signed = await processor.SignAsync(message, CancellationToken.None);

        // Assert: two pooled streams, the claim blob and the signer's canonical stream; the blob holds exactly the signed bytes.
        Assert.Equal(2, created.Count);
        Assert.Contains("claim-check-envelope", created);
        Assert.Equal(seed.Canonical, await DownloadAsync(signed.CanonicalBlob!));
        Assert.Equal(0, pool.SmallPoolInUseSize + pool.LargePoolInUseSize);
    }

    [Fact]
    public async Task SignAsync_RedeliveryWithChangedClaimBlobAttack_NeverOverwritesTheCanonicalBlobAnEarlierOutputPointsTo()
    {
        // Arrange: the first delivery signs the seed; before the redelivery the producer swaps the claim blob.
        var (processor, names) = Create(new() { ["Queues:InlineCanonicalMaxBytes"] = "0" });
        var seed = Vector.Load("seed-3000-widgets");
        var other = Vector.Load("one-widget");
        var container = Container(names.WidgetClaimsContainer);
        await container.CreateIfNotExistsAsync();
        await container.GetBlobClient("swap.json").UploadAsync(new BinaryData(seed.Input));
        var message = new SigningQueueMessage("m4", 1, null, Encoding.UTF8.GetBytes("{\"claimCheck\":{\"blob\":\"swap.json\"}}"));
        var first = await processor.SignAsync(message, CancellationToken.None);
        await container.GetBlobClient("swap.json").UploadAsync(new BinaryData(other.Input), overwrite: true);

        // Act
        var second = await processor.SignAsync(new SigningQueueMessage("m4", 2, null, message.Body), CancellationToken.None);

        // Assert: each output's blob holds exactly the bytes its signature covers, and the claim ETags tell the versions apart.
        Assert.NotEqual(first.CanonicalBlob, second.CanonicalBlob);
        Assert.Equal(seed.Canonical, await DownloadAsync(first.CanonicalBlob!));
        Assert.Equal(seed.SignatureHex, first.Signature);
        Assert.Equal(other.Canonical, await DownloadAsync(second.CanonicalBlob!));
        Assert.NotNull(first.ClaimCheck!.ETag);
        Assert.NotEqual(first.ClaimCheck.ETag, second.ClaimCheck!.ETag);
        Assert.Equal(first.ClaimCheck.ETag, JObject.Parse(first.ToJson())["claimCheck"]!.Value<string>("etag"));
    }

    [Fact]
    public async Task SignAsync_SameMessageSignedTwice_FindsItsCreateOnlyBlobAndSucceeds()
    {
        // Arrange
        var (processor, _) = Create(new() { ["Queues:InlineCanonicalMaxBytes"] = "0" });
        var vector = Vector.Load("one-widget");
        var message = new SigningQueueMessage("m5", 1, null, vector.Input);

        // Act: the second write meets If-None-Match: * (409) on identical bytes.
        var first = await processor.SignAsync(message, CancellationToken.None);
        var second = await processor.SignAsync(message, CancellationToken.None);

        // Assert
        Assert.Equal(first.CanonicalBlob, second.CanonicalBlob);
        Assert.Equal(vector.Canonical, await DownloadAsync(second.CanonicalBlob!));
    }

    [Theory]
    [InlineData("append")]
    [InlineData("page")]
    public async Task SignAsync_AppendOrPageBlobAsClaimCheckAttack_IsRejectedNotRetried(string kind)
    {
        // Arrange
        var (processor, names) = Create(new());
        var container = Container(names.WidgetClaimsContainer);
        await container.CreateIfNotExistsAsync();
        if (kind == "append")
        {
            var append = container.GetAppendBlobClient("odd.json");
            await append.CreateAsync();
            await append.AppendBlockAsync(new MemoryStream(Vector.Load("one-widget").Input));
        }
        else
        {
            await container.GetPageBlobClient("odd.json").CreateAsync(512);
        }

        var message = new SigningQueueMessage("m6", 1, null, Encoding.UTF8.GetBytes("{\"claimCheck\":{\"blob\":\"odd.json\"}}"));

        // Act
        var error = await ProblemAssert.ThrowsAsync(Problems.Types.MessageRejected, () => processor.SignAsync(message, CancellationToken.None));

        // Assert
        Assert.Contains("only block blobs are accepted", error.Message, StringComparison.Ordinal);
        Assert.Equal("$.claimCheck.blob", error.Problem.JsonPath);
    }

    [Fact]
    public void EncodeOutput_AtTheInlineBoundWithTheWorstClaimCheckName_FitsAQueueMessage()
    {
        // Arrange: the largest inline canonical bytes with the longest claim-check name of the characters JSON escapes widest (U+2028 → \u2028, 6 bytes).
        var output = new SignatureMessage
        {
            MessageId = Guid.NewGuid().ToString(),
            DequeueCount = int.MaxValue,
            Algorithm = "HMACSHA256",
            KeyId = new string('k', 128),
            Signature = new string('a', 64),
            WidgetCount = int.MaxValue,
            CanonicalLength = QueueOptions.MaxInlineCanonicalBytes,
            CanonicalBase64 = Convert.ToBase64String(new byte[QueueOptions.MaxInlineCanonicalBytes]),
            ClaimCheck = new BlobReference(new string('c', 63), new string('\u2028', ClaimCheckBlobName.MaxLength), "\"0x8DC0000000000000\""),
        };

        // Act
        var text = QueueSigningProcessor.EncodeOutput(output);

        // Assert
        Assert.True(text.Length <= QueueOptions.MaxQueueMessageChars, $"{text.Length} characters");
    }

    [Fact]
    public void EncodeOutput_OversizedOutputAttack_IsARejectionWithAReason()
    {
        // Arrange: past the bound (as if the option allowed more): the output cannot be sent, so it must not be retried into poison.
        var output = new SignatureMessage
        {
            MessageId = "m7",
            DequeueCount = 1,
            Algorithm = "HMACSHA256",
            KeyId = "local",
            Signature = new string('a', 64),
            WidgetCount = 1,
            CanonicalLength = 48 * 1024,
            CanonicalBase64 = Convert.ToBase64String(new byte[48 * 1024]),
        };

        // Act
        var error = ProblemAssert.Throws(Problems.Types.MessageRejected, () => QueueSigningProcessor.EncodeOutput(output));

        // Assert
        Assert.Contains("Queues:InlineCanonicalMaxBytes", error.Message, StringComparison.Ordinal);
        Assert.Contains("at most 65536", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task SignAsync_CanonicalAmplificationAttack_IsRejectedNamingTheSettingAndHoldsNothing()
    {
        // Arrange: 40 KB of raw U+0085 would be a 120 KB canonical form; the bound is 64 KiB.
        var (processor, _, services) = CreateWithServices(new() { ["Envelopes:MaxCanonicalBytes"] = "65536" });
        var body = AttackBodies.ControlCharacterEnvelope(40 * 1024, "nel");

        // Act
        var error = await ProblemAssert.ThrowsAsync(Problems.Types.MessageRejected, () =>
            processor.SignAsync(new SigningQueueMessage("m9", 1, null, body), CancellationToken.None));

        // Assert: a rejection with the reason (not a failure to retry into poison), and nothing left charged or pooled.
        Assert.Contains("Envelopes:MaxCanonicalBytes", error.Message, StringComparison.Ordinal);
        Assert.Equal(0, services.GetRequiredService<EnvelopeMemoryBudget>().InUse);
        var pool = services.GetRequiredService<Microsoft.IO.RecyclableMemoryStreamManager>();
        Assert.Equal(0, pool.SmallPoolInUseSize + pool.LargePoolInUseSize);
    }

    [Fact]
    public async Task SignAndReject_CredentialThatCannotCreateContainersOrQueues_WritesIntoWhatInfraCreated()
    {
        // Arrange: what infra grants in Azure (write into the queues and containers it created, never create one),
        // as an account SAS for objects only. Canonical and rejected bodies go to blobs; the rejection twice (a redelivery).
        var sas = new AccountSasBuilder(
                AccountSasPermissions.Read | AccountSasPermissions.Write | AccountSasPermissions.Add | AccountSasPermissions.Create | AccountSasPermissions.Process,
                DateTimeOffset.UtcNow.AddHours(1),
                AccountSasServices.Blobs | AccountSasServices.Queues,
                AccountSasResourceTypes.Object)
            .ToSasQueryParameters(new StorageSharedKeyCredential(AzuriteFixture.AccountName, AzuriteFixture.AccountKey)).ToString();
        var rejectedQueue = "p" + Guid.NewGuid().ToString("N")[..12] + "-rej";
        var (processor, names, _) = CreateWithServices(new()
        {
            [QueueOptions.ConnectionSetting] = $"BlobEndpoint={_azurite.BlobServiceUri};QueueEndpoint={_azurite.QueueServiceUri};SharedAccessSignature={sas}",
            ["Queues:InlineCanonicalMaxBytes"] = "0",
            ["WidgetRejectedQueue"] = rejectedQueue,
        });
        await Container(names.WidgetCanonicalContainer).CreateAsync();
        await Container(names.WidgetRejectedContainer).CreateAsync();
        await new QueueServiceClient(_azurite.ConnectionString).GetQueueClient(rejectedQueue).CreateAsync();
        var denied = await Assert.ThrowsAsync<RequestFailedException>(() =>
            new BlobContainerClient(new Uri($"{_azurite.BlobServiceUri}/{names.WidgetClaimsContainer}?{sas}")).CreateAsync());
        Assert.Equal(403, denied.Status);
        var vector = Vector.Load("one-widget");
        var bad = new SigningQueueMessage("m10", 1, null, Encoding.UTF8.GetBytes("{\"widgets\":7}"));

        // Act
        var signed = await processor.SignAsync(new SigningQueueMessage("m11", 1, null, vector.Input), CancellationToken.None);
        var first = await processor.RejectAsync(bad, "not an envelope", "$.widgets", CancellationToken.None);
        var again = await processor.RejectAsync(new SigningQueueMessage("m10", 2, null, bad.Body), "not an envelope", "$.widgets", CancellationToken.None);

        // Assert
        Assert.Equal(vector.Canonical, await DownloadAsync(signed.CanonicalBlob!));
        Assert.Equal(first.Body, again.Body);
        Assert.Equal(bad.Body.ToArray(), await DownloadAsync(first.Body!));
        var sent = await new QueueServiceClient(_azurite.ConnectionString).GetQueueClient(rejectedQueue).PeekMessagesAsync(10);
        Assert.Equal(2, sent.Value.Length);
    }

    public static TheoryData<string> PositiveVectors => Vector.Names(reject: false);

    [Theory]
    [MemberData(nameof(PositiveVectors))]
    public async Task SignAsync_ClaimCheckNamingTwoReceivers_EachReceiverSignedWithItsOwnKeyOverTheVectorsCanonicalBytes(string name)
    {
        // Arrange
        var (processor, names) = Create(ReceiverKeys());
        var vector = Vector.Load(name);
        var message = await ClaimCheckMessageAsync(names, "m-two-" + name, vector, "\"receivers\":[\"partner-a\",\"partner-b\"]");

        // Act
        var signed = await processor.SignAsync(message, CancellationToken.None);
        var json = JObject.Parse(signed.ToJson());

        // Assert: no unnamed signature; each receiver's plain and Standard Webhooks signatures made with its own key.
        var canonical = signed.CanonicalBase64 is { } inline ? Convert.FromBase64String(inline) : await DownloadAsync(signed.CanonicalBlob!);
        Assert.Equal(vector.Canonical, canonical);
        Assert.Null(json["signature"]);
        Assert.Null(json["receiver"]);
        var id = DerivedWebhookId.ForQueueMessage(message.Id, vector.Canonical);
        var timestamp = (string)json["webhook"]!["timestamp"]!;
        Assert.Equal(id, (string?)json["webhook"]!["id"]);
        var receivers = (JArray)json["receivers"]!;
        Assert.Equal(["partner-a", "partner-b"], receivers.Select(r => (string)r["receiver"]!));
        foreach (var (receiver, key) in receivers.Zip([PartnerAKey, PartnerBKey]))
        {
            Assert.Equal(HmacHex(key, vector.Canonical), (string?)receiver["signature"]);
            Assert.Equal(HmacHex(key, vector.Canonical), (string?)Assert.Single(receiver["signatures"]!)["signature"]);
            Assert.Equal(DerivedWebhookId.WebhookSignature(key, id, timestamp, vector.Canonical), (string?)receiver["webhookSignature"]);
        }
    }

    [Fact]
    public async Task SignAsync_InlineEnvelopes_SignedForTheDefaultReceiverWithItsKey()
    {
        // Arrange: receivers' keys are configured too; an inline envelope names none, so it gets the default receiver's.
        var (processor, _) = Create(ReceiverKeys());
        var vectors = Vector.All().Where(v => !v.Reject && v.Input.Length < 40 * 1024).ToList();
        Assert.NotEmpty(vectors);

        foreach (var vector in vectors)
        {
            // Act
            var signed = await processor.SignAsync(new SigningQueueMessage("m-default-" + vector.Name, 1, null, vector.Input), CancellationToken.None);
            var json = JObject.Parse(signed.ToJson());

            // Assert
            Assert.Equal("default", (string?)json["receiver"]);
            Assert.Equal(vector.SignatureHex, (string?)json["signature"]);
            Assert.Null(json["receivers"]);
            Assert.Equal(vector.Canonical, Convert.FromBase64String(signed.CanonicalBase64!));
        }
    }

    [Fact]
    public async Task SignAsync_QueueDefaultReceiverSet_InlineEnvelopeSignedWithThatReceiversKey()
    {
        // Arrange
        var settings = ReceiverKeys();
        settings["Queues:DefaultReceiver"] = "partner-b";
        var (processor, _) = Create(settings);
        var vector = Vector.Load("escapes-and-unicode");

        // Act
        var signed = await processor.SignAsync(new SigningQueueMessage("m-queue-default", 1, null, vector.Input), CancellationToken.None);
        var json = JObject.Parse(signed.ToJson());

        // Assert
        Assert.Equal("partner-b", (string?)json["receiver"]);
        Assert.Equal(HmacHex(PartnerBKey, vector.Canonical), (string?)json["signature"]);
        Assert.NotEqual(vector.SignatureHex, (string?)json["signature"]);
    }

    [Fact]
    public async Task SignAsync_ClaimCheckNamingAnUnknownReceiver_IsRejectedNamingItAtTheReceiversPath()
    {
        // Arrange
        var (processor, names) = Create(ReceiverKeys());
        var message = await ClaimCheckMessageAsync(names, "m-unknown", Vector.Load("one-widget"), "\"receivers\":[\"partner-a\",\"nobody\"]");

        // Act
        var error = await ProblemAssert.ThrowsAsync(Problems.Types.MessageRejected, () => processor.SignAsync(message, CancellationToken.None));

        // Assert
        Assert.Equal("$.receivers", error.Problem.JsonPath);
        Assert.Contains("'nobody'", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task SignAsync_ReceiverNotAllowedOnTheQueueAttack_IsRejectedNamingTheSettingBeforeAnyBlobIsRead()
    {
        // Arrange: a sender of this queue names partner-b, which has a key but is not among the queue's receivers; the
        // claim check points at a blob that does not exist, so reading it would fail differently.
        var settings = ReceiverKeys();
        settings["Queues:AllowedReceivers"] = "default,partner-a";
        var (processor, names) = Create(settings);
        await Container(names.WidgetClaimsContainer).CreateIfNotExistsAsync();
        var message = new SigningQueueMessage("m-not-allowed", 1, null, Encoding.UTF8.GetBytes("{\"claimCheck\":{\"blob\":\"absent.json\"},\"receivers\":[\"partner-a\",\"partner-b\"]}"));

        // Act
        var error = await ProblemAssert.ThrowsAsync(Problems.Types.MessageRejected, () => processor.SignAsync(message, CancellationToken.None));

        // Assert: nothing signed for either receiver; the reason names the receiver and the setting.
        Assert.Equal("$.receivers", error.Problem.JsonPath);
        Assert.Contains("'partner-b'", error.Message, StringComparison.Ordinal);
        Assert.Contains("Queues:AllowedReceivers", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task SignAsync_NoReceiverNamedAndNoDefaultReceiver_IsRejectedNamingTheSettingsBeforeAnyBlobIsRead()
    {
        // Arrange: neither default set; the claim check points at a blob that does not exist.
        var settings = ReceiverKeys();
        settings["Receivers:DefaultReceiver"] = string.Empty;
        var (processor, names) = Create(settings);
        await Container(names.WidgetClaimsContainer).CreateIfNotExistsAsync();
        var inline = new SigningQueueMessage("m-none-inline", 1, null, Vector.Load("one-widget").Input);
        var claim = new SigningQueueMessage("m-none-claim", 1, null, Encoding.UTF8.GetBytes("{\"claimCheck\":{\"blob\":\"absent.json\"}}"));

        // Act
        var inlineError = await ProblemAssert.ThrowsAsync(Problems.Types.MessageRejected, () => processor.SignAsync(inline, CancellationToken.None));
        var claimError = await ProblemAssert.ThrowsAsync(Problems.Types.MessageRejected, () => processor.SignAsync(claim, CancellationToken.None));

        // Assert: the reason is the missing default, not the missing blob: receivers are settled first.
        foreach (var error in new[] { inlineError, claimError })
        {
            Assert.Equal("$", error.Problem.JsonPath);
            Assert.Contains("Queues:DefaultReceiver", error.Message, StringComparison.Ordinal);
            Assert.Contains("Receivers:DefaultReceiver", error.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task SignAsync_TwoReceiverMessageRedelivered_SameMessageIdSignaturesAndCanonicalBlob()
    {
        // Arrange: into a blob, so a redelivery must also find its create-only canonical blob.
        var settings = ReceiverKeys();
        settings["Queues:InlineCanonicalMaxBytes"] = "0";
        var (processor, names) = Create(settings);
        var vector = Vector.Load("one-widget");
        var message = await ClaimCheckMessageAsync(names, "m-redelivered", vector, "\"receivers\":[\"partner-a\",\"partner-b\"]");

        // Act
        var first = JObject.Parse((await processor.SignAsync(message, CancellationToken.None)).ToJson());
        var again = JObject.Parse((await processor.SignAsync(new SigningQueueMessage(message.Id, 2, null, message.Body), CancellationToken.None)).ToJson());

        // Assert: everything a consumer de-duplicates and verifies on is the same; only the dequeue count (and timestamp) moved.
        Assert.Equal((string?)first["messageId"], (string?)again["messageId"]);
        Assert.Equal(2, (int)again["dequeueCount"]!);
        Assert.Equal((string?)first["webhook"]!["id"], (string?)again["webhook"]!["id"]);
        Assert.True(JToken.DeepEquals(first["canonicalBlob"], again["canonicalBlob"]), "both deliveries should point at one canonical blob");
        static List<string> Signed(JObject output) => ((JArray)output["receivers"]!).Select(r => $"{r["receiver"]}={r["signature"]}").ToList();
        Assert.Equal(Signed(first), Signed(again));
        Assert.Equal([$"partner-a={HmacHex(PartnerAKey, vector.Canonical)}", $"partner-b={HmacHex(PartnerBKey, vector.Canonical)}"], Signed(first));
        Assert.Equal(vector.Canonical, await DownloadAsync(new BlobReference((string)again["canonicalBlob"]!["container"]!, (string)again["canonicalBlob"]!["blob"]!)));
    }

    [Fact]
    public async Task SignAsync_MostReceiversAtTheInlineBound_OutputFitsAQueueMessageWithItsCanonicalBytesInABlob()
    {
        // Arrange: the largest settings allowed (64 receivers, 30 KiB inline): 64 receivers' signatures beside 40 KiB of
        // base64 are more than a queue message holds, yet every input is within its bounds.
        var ids = Enumerable.Range(0, SignRequest.MaxReceivers).Select(i => $"receiver-{i:D2}").ToList();
        var keys = ids.ToDictionary(id => id, _ => RandomNumberGenerator.GetBytes(32));
        var settings = keys.ToDictionary(p => "Signing:LocalKeys:" + p.Key, p => (string?)Convert.ToBase64String(p.Value));
        settings["Receivers:MaxPerRequest"] = SignRequest.MaxReceivers.ToString(System.Globalization.CultureInfo.InvariantCulture);
        settings["Queues:InlineCanonicalMaxBytes"] = QueueOptions.MaxInlineCanonicalBytes.ToString(System.Globalization.CultureInfo.InvariantCulture);
        var (processor, names) = Create(settings);
        var envelope = await LargestInlineEnvelopeAsync(processor);
        var container = Container(names.WidgetClaimsContainer);
        await container.CreateIfNotExistsAsync();
        await container.GetBlobClient("many.json").UploadAsync(new BinaryData(envelope));
        var body = new JObject { ["claimCheck"] = new JObject { ["blob"] = "many.json" }, ["receivers"] = new JArray(ids) };
        var message = new SigningQueueMessage("m-many", 1, null, Encoding.UTF8.GetBytes(body.ToString(Newtonsoft.Json.Formatting.None)));

        // Act
        var signed = await processor.SignAsync(message, CancellationToken.None);
        var text = QueueSigningProcessor.EncodeOutput(signed);

        // Assert: forwarded, not rejected; every receiver's signature over the bytes the output points to.
        Assert.True(text.Length <= QueueOptions.MaxQueueMessageChars, $"{text.Length} characters");
        Assert.Null(signed.CanonicalBase64);
        var canonical = await DownloadAsync(signed.CanonicalBlob!);
        Assert.Equal(signed.CanonicalLength, canonical.Length);
        Assert.True(canonical.Length > QueueOptions.MaxInlineCanonicalBytes - 1024, $"{canonical.Length} canonical bytes");
        var receivers = (JArray)JObject.Parse(signed.ToJson())["receivers"]!;
        Assert.Equal(ids, receivers.Select(r => (string)r["receiver"]!));
        Assert.All(receivers, r => Assert.Equal(HmacHex(keys[(string)r["receiver"]!], canonical), (string?)r["signature"]));
    }

    [Fact]
    public async Task SignAsync_Ed25519Receiver_OutputNamesReceiverAndSchemeWithV1aAndPlainSignature()
    {
        // Arrange: partner-c holds an Ed25519 key only (the known answer's, computed with Node's crypto).
        var vector = Ed25519Vector.Load("one-widget");
        var (processor, names) = Create(new() { ["Signing:LocalKeys:partner-c"] = vector.Secret });
        var message = await ClaimCheckMessageAsync(names, "m-ed25519", vector.Vector, "\"receivers\":[\"partner-c\"]");

        // Act
        var signed = await processor.SignAsync(message, CancellationToken.None);

        // Assert: no HMAC member at all; the Ed25519 signature over the canonical bytes is the known answer.
        var json = JObject.Parse(signed.ToJson());
        Assert.Equal("Ed25519", (string?)json["algorithm"]);
        Assert.Equal("partner-c", (string?)json["receiver"]);
        Assert.Null(json["signature"]);
        Assert.Equal(vector.PlainSignature, (string?)json["ed25519Signature"]);
        Assert.Matches("^v1a,[A-Za-z0-9+/]{86}==$", (string?)json["webhook"]!["signature"]);
    }

    private (QueueSigningProcessor Processor, QueueNames Names) Create(Dictionary<string, string?> settings)
    {
        var (processor, names, _) = CreateWithServices(settings);
        return (processor, names);
    }

    private (QueueSigningProcessor Processor, QueueNames Names, ServiceProvider Services) CreateWithServices(Dictionary<string, string?> settings)
    {
        var prefix = "p" + Guid.NewGuid().ToString("N")[..12];
        var names = new QueueNames
        {
            WidgetClaimsContainer = prefix + "-claims",
            WidgetCanonicalContainer = prefix + "-canonical",
            WidgetRejectedContainer = prefix + "-rejected",
        };
        settings["AzureWebJobsStorage"] = _azurite.ConnectionString;
        settings.TryAdd(QueueOptions.ConnectionSetting, _azurite.ConnectionString);
        settings["Signing:LocalKey"] = Vector.KeyBase64;
        settings["AZURE_FUNCTIONS_ENVIRONMENT"] = "Development";
        settings["Auth:Disabled"] = "true";
        settings["Audit:Disabled"] = "true";

        // The queue allows every receiver the test gives a key to, and those a test names to be refused as unknown.
        settings.TryAdd("Queues:AllowedReceivers", string.Join(",", settings.Keys
            .Where(k => k.StartsWith("Signing:LocalKeys:", StringComparison.Ordinal))
            .Select(k => k["Signing:LocalKeys:".Length..])
            .Prepend("default").Append("nobody").Append("ghost")));
        settings["WidgetClaimsContainer"] = names.WidgetClaimsContainer;
        settings["WidgetCanonicalContainer"] = names.WidgetCanonicalContainer;
        settings["WidgetRejectedContainer"] = names.WidgetRejectedContainer;
        var configuration = new ConfigurationBuilder().AddInMemoryCollection(settings).Build();
        var services = new ServiceCollection()
            .AddLogging()
            .AddSingleton<IConfiguration>(configuration)
            .AddWidgetSigning(configuration)
            .AddWidgetQueueSigning(configuration)
            .BuildServiceProvider(new ServiceProviderOptions { ValidateOnBuild = true });
        return (services.GetRequiredService<QueueSigningProcessor>(), names, services);
    }

    private static Dictionary<string, string?> ReceiverKeys() => new()
    {
        ["Signing:LocalKeys:partner-a"] = Convert.ToBase64String(PartnerAKey),
        ["Signing:LocalKeys:partner-b"] = Convert.ToBase64String(PartnerBKey),
    };

    private static string HmacHex(byte[] key, byte[] data) => Convert.ToHexString(HMACSHA256.HashData(key, data)).ToLowerInvariant();

    /// <summary>Uploads <paramref name="vector"/>'s input as a claim blob and returns a claim check for it with <paramref name="receivers"/> (a JSON member).</summary>
    private async Task<SigningQueueMessage> ClaimCheckMessageAsync(QueueNames names, string id, Vector vector, string receivers)
    {
        var container = Container(names.WidgetClaimsContainer);
        await container.CreateIfNotExistsAsync();
        await container.GetBlobClient(id + ".json").UploadAsync(new BinaryData(vector.Input), overwrite: true);
        return new SigningQueueMessage(id, 1, null, Encoding.UTF8.GetBytes("{\"claimCheck\":{\"blob\":\"" + id + ".json\"}," + receivers + "}"));
    }

    /// <summary>The seed's first widgets, as many as keep the canonical form within the inline bound.</summary>
    private static async Task<byte[]> LargestInlineEnvelopeAsync(QueueSigningProcessor processor)
    {
        var widgets = (JArray)JObject.Parse(Encoding.UTF8.GetString(Vector.Load("seed-3000-widgets").Input))["widgets"]!;
        byte[]? best = null;
        for (var count = 1; count <= widgets.Count; count++)
        {
            var envelope = Encoding.UTF8.GetBytes(new JObject { ["widgets"] = new JArray(widgets.Take(count)) }.ToString(Newtonsoft.Json.Formatting.None));
            var signed = await processor.SignAsync(new SigningQueueMessage("m-size", 1, null, envelope), CancellationToken.None);
            if (signed.CanonicalLength > QueueOptions.MaxInlineCanonicalBytes)
            {
                return best!;
            }

            best = envelope;
        }

        throw new InvalidOperationException("the seed's canonical form fits inline");
    }

    private BlobContainerClient Container(string name) => new BlobServiceClient(_azurite.ConnectionString).GetBlobContainerClient(name);

    private async Task<byte[]> DownloadAsync(BlobReference reference) =>
        (await Container(reference.Container).GetBlobClient(reference.Blob).DownloadContentAsync()).Value.Content.ToArray();
}
