using System.Buffers;
using System.Security.Cryptography;
using System.Text;
using Microsoft.Extensions.Time.Testing;
using WidgetSigning.Envelopes;
using WidgetSigning.Keys;
using WidgetSigning.Signing;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Signing;

/// <summary>
/// The signer makes only the forms asked for. Each form alone matches the shared known answers (the plain
/// vectors for <c>X-Signature</c>, the webhook vectors for <c>webhook-signature</c>), in memory and behind the reader, on
/// one core and two; a form left out is absent, not empty; and one form is one MAC chain per key, never two.
/// </summary>
public sealed class SignatureFormsTests
{
    private const string WebhookId = "msg_forms";

    private readonly TestServices _services = new();

    public static TheoryData<string, bool> PositiveVectorsOnOneAndTwoCores()
    {
        var data = new TheoryData<string, bool>();
        foreach (var name in Vector.Names(reject: false))
        {
            data.Add(name, false);
            data.Add(name, true);
        }

        return data;
    }

    public static TheoryData<string, bool> WebhookVectorsOnOneAndTwoCores()
    {
        var data = new TheoryData<string, bool>();
        foreach (var name in WebhookVector.Names())
        {
            data.Add(name, false);
            data.Add(name, true);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(PositiveVectorsOnOneAndTwoCores))]
    public void Sign_PositiveVectorPlainOnly_KnownSignatureAndNoWebhook(string name, bool twoCores)
    {
        // Arrange
        var vector = Vector.Load(name);
        var envelope = _services.Read(vector.Input);
        var signer = Signer(twoCores);

        // Act
        using var signed = signer.SignWith(envelope, SignatureForms.Plain);

        // Assert
        Assert.Equal(vector.Canonical, signed.GetCanonicalBytes().ToArray());
        Assert.Equal(vector.SignatureHex, signed.Signature.ToHex());
        Assert.Equal(SignatureForms.Plain, signed.Forms);
        Assert.Equal(vector.SignatureHex, Assert.Single(signed.Signatures).Signature.ToHex());
        Assert.Null(signed.Webhook);
    }

    [Theory]
    [MemberData(nameof(WebhookVectorsOnOneAndTwoCores))]
    public void SignAll_WebhookVectorWebhookOnly_KnownV1SignatureAndNoPlainSignature(string name, bool twoCores)
    {
        // Arrange: the vector's id and, through the clock, its timestamp.
        var vector = WebhookVector.Load(name);
        var key = new SigningKey("vector", Convert.FromBase64String(vector.Key));
        var signer = Signer(twoCores, vector.Timestamp, key);
        var envelope = _services.Read(vector.Vector.Input);

        // Act
        using var signed = SignAll(signer, envelope, vector.Id, SignatureForms.Webhook);

        // Assert
        Assert.Equal(vector.Vector.Canonical, signed.GetCanonicalBytes().ToArray());
        Assert.Equal(new WebhookSignature(vector.Id, vector.Timestamp, vector.Signature), signed.Webhook);
        Assert.Equal(SignatureForms.Webhook, signed.Forms);
        Assert.Empty(signed.Signatures);
        Assert.Throws<InvalidOperationException>(() => signed.Signature);
    }

    [Theory]
    [MemberData(nameof(WebhookVectorsOnOneAndTwoCores))]
    public void SignAll_WebhookVectorBothForms_BothKnownAnswers(string name, bool twoCores)
    {
        // Arrange
        var vector = WebhookVector.Load(name);
        var key = new SigningKey("vector", Convert.FromBase64String(vector.Key));
        var signer = Signer(twoCores, vector.Timestamp, key);
        var envelope = _services.Read(vector.Vector.Input);

        // Act
        using var signed = SignAll(signer, envelope, vector.Id, SignatureForms.Both);

        // Assert
        Assert.Equal(vector.Signature, signed.Webhook!.Signature);
        Assert.Equal(vector.Vector.SignatureHex, signed.Signature.ToHex());
        Assert.Equal(SignatureForms.Both, signed.Forms);
    }

    [Theory]
    [InlineData(SignatureForms.Plain, false)]
    [InlineData(SignatureForms.Plain, true)]
    [InlineData(SignatureForms.Webhook, false)]
    [InlineData(SignatureForms.Webhook, true)]
    public async Task ReadAndSignAsync_SeedVectorOneFormWithASeed_ThatFormsKnownAnswerAndNothingElse(SignatureForms forms, bool behindTheReader)
    {
        // Arrange: a derived id (an Idempotency-Key), the case where the Standard Webhooks MAC follows the pass.
        var vector = Vector.Load("seed-3000-widgets");
        var signer = Signer(behindTheReader, timestamp: 1_795_000_000);
        var seed = WebhookIdSeed.FromIdempotencyKey("order-30");

        // Act
        await using var signed = await signer.SignAsync(
            new MemoryStream(vector.Input, writable: false),
            new SignRequest { Receivers = [SigningTestExtensions.DefaultReceiver], IdSeed = seed, Forms = forms },
            CancellationToken.None);

        // Assert: computed here from the formulas, not with the service's code.
        Assert.Equal(vector.Canonical, signed.GetCanonicalBytes().ToArray());
        if (forms == SignatureForms.Plain)
        {
            Assert.Equal(vector.SignatureHex, signed.Signature.ToHex());
            Assert.Null(signed.Webhook);
        }
        else
        {
            var id = DerivedWebhookId.ForIdempotencyKey("order-30", vector.Canonical);
            Assert.Equal(new WebhookSignature(id, 1_795_000_000, DerivedWebhookId.WebhookSignature(Vector.Key, id, "1795000000", vector.Canonical)), signed.Webhook);
            Assert.Empty(signed.Signatures);
        }
    }

    [Fact]
    public void SignAll_WebhookOnlyWithAStagedKey_TwoV1EntriesAndNoHexSignatures()
    {
        // Arrange: a rotation in progress.
        var vector = WebhookVector.Load("one-widget");
        var current = new SigningKey("current-version", Convert.FromBase64String(vector.Key));
        var stagedKey = Enumerable.Range(7, 32).Select(i => (byte)i).ToArray();
        var staged = new SigningKey("staged-version", stagedKey);
        var signer = Signer(twoCores: false, vector.Timestamp, current, staged);
        var envelope = _services.Read(vector.Vector.Input);

        // Act
        using var signed = SignAll(signer, envelope, vector.Id, SignatureForms.Webhook);

        // Assert
        var prefixed = Encoding.ASCII.GetBytes($"{vector.Id}.{vector.Timestamp}.").Concat(vector.Vector.Canonical).ToArray();
        Assert.Equal(vector.Signature + " v1," + Convert.ToBase64String(HMACSHA256.HashData(stagedKey, prefixed)), signed.Webhook!.Signature);
        Assert.Empty(signed.Signatures);
    }

    [Fact]
    public void SignAll_PlainOnlyWithAStagedKey_LabelledHexForEachKeyAndNoWebhook()
    {
        // Arrange
        var vector = Vector.Load("one-widget");
        var stagedKey = Enumerable.Range(7, 32).Select(i => (byte)i).ToArray();
        var staged = new SigningKey("staged-version", stagedKey);
        var envelope = _services.Read(vector.Input);

        // Act
        using var signed = SignAll(Signer(twoCores: true, null, _services.Key, staged), envelope, WebhookId, SignatureForms.Plain);

        // Assert
        Assert.Collection(
            signed.Signatures,
            s => Assert.Equal(("local", KeyState.Current, vector.SignatureHex), (s.KeyId, s.State, s.Signature.ToHex())),
            s => Assert.Equal(
                ("staged-version", KeyState.Staged, Convert.ToHexString(HMACSHA256.HashData(stagedKey, vector.Canonical)).ToLowerInvariant()),
                (s.KeyId, s.State, s.Signature.ToHex())));
        Assert.Null(signed.Webhook);
    }

    [Fact]
    public void SignAll_PlainOnlyWithAnInvalidWebhookId_SignsBecauseNoIdIsMade()
    {
        // Arrange: an id that would be refused if a webhook-id were made.
        var vector = Vector.Load("one-widget");
        var envelope = _services.Read(vector.Input);

        // Act
        using var signed = SignAll(_services.Signer, envelope, "not valid!", SignatureForms.Plain);

        // Assert
        Assert.Equal(vector.SignatureHex, signed.Signature.ToHex());
        Assert.Throws<ArgumentException>(() => SignAll(_services.Signer, envelope, "not valid!", SignatureForms.Webhook));
    }

    [Theory]
    [InlineData(SignatureForms.Plain, false, 0, 1)]
    [InlineData(SignatureForms.Plain, true, 0, 1)]
    [InlineData(SignatureForms.Webhook, false, 0, 1)]
    [InlineData(SignatureForms.Both, false, 0, 2)]
    [InlineData(SignatureForms.Plain, false, 2, 3)]
    [InlineData(SignatureForms.Webhook, false, 2, 3)]
    [InlineData(SignatureForms.Both, false, 2, 6)]
    [InlineData(SignatureForms.Webhook, true, 0, 1)]
    [InlineData(SignatureForms.Both, true, 0, 2)]
    [InlineData(SignatureForms.Webhook, true, 2, 1)]
    [InlineData(SignatureForms.Both, true, 2, 4)]
    public void CreateMacs_Forms_OneChainPerKeyAndFormInThePass(SignatureForms forms, bool derivedId, int stagedKeys, int expected)
    {
        // Arrange: what the pass over the canonical bytes feeds. A derived id adds the SHA-256 it comes from and moves the
        // Standard Webhooks MACs after the pass; without that form, no id is made and no SHA-256 is fed.
        var staged = Enumerable.Range(0, stagedKeys).Select(i => new SigningKey($"staged-{i}", RandomNumberGenerator.GetBytes(32))).ToArray();
        var request = derivedId
            ? SigningTestExtensions.Request(forms, seed: WebhookIdSeed.FromIdempotencyKey("k"))
            : SigningTestExtensions.Request(forms, webhookId: WebhookId);
        ReceiverKeys[] keys = [new(SigningTestExtensions.DefaultReceiver, new SigningKeys(_services.Key, staged))];
        var plan = SignPlan.Of(request);

        // Act
        var macs = plan.CreateMacs(keys, timestamp: 1);
        var count = macs.Count;
        macs.Abandon();

        // Assert: and, whatever the forms, the SHA-256 of the bytes the audit record names them by.
        Assert.Equal(expected + 1, count);
    }

    [Fact]
    public void CreateMacs_PlainOnlyWithASeed_NoWebhookIdAndNoDigest()
    {
        // Act
        var plan = SignPlan.Of(SigningTestExtensions.Request(SignatureForms.Plain, seed: WebhookIdSeed.FromIdempotencyKey("k")));

        // Assert: neither a derived nor a generated id; nothing to feed but X-Signature's MAC.
        Assert.Null(plan.Seed);
        Assert.Null(plan.Literal);
    }

    // Signs with the signer's keys, under the literal id, making only the forms asked for.
    private static SignedEnvelope SignAll(EnvelopeSigner signer, WidgetEnvelope envelope, string webhookId, SignatureForms forms) =>
        signer.SignAsync(envelope, SigningTestExtensions.Request(forms, webhookId: webhookId), CancellationToken.None).AsTask().GetAwaiter().GetResult();

    // The current key (and staged ones) given, or the vectors' key; two cores eagerly, or one.
    private EnvelopeSigner Signer(bool twoCores, long? timestamp = null, SigningKey? current = null, params SigningKey[] staged) =>
        _services.CreateSigner(
            current is null ? _services.KeySource : new FixedReceiverKeySource(current, staged),
            twoCores ? TestServices.Eager : TestServices.OneCore,
            time: timestamp is { } t ? new FakeTimeProvider(DateTimeOffset.FromUnixTimeSeconds(t)) : TimeProvider.System);
}
