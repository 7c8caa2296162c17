using System.Buffers;
using Microsoft.Extensions.Time.Testing;
using WidgetSigning.Keys;
using WidgetSigning.Signing;
using FunctionApp.Tests.TestKit;

namespace FunctionApp.Tests.Signing;

/// <summary>The shared Standard Webhooks known answers, each over its case's canonical.json.</summary>
public sealed class WebhookKnownAnswerTests
{
    private readonly TestServices _services = new();

    public static TheoryData<string> Vectors => WebhookVector.Names();

    [Theory]
    [MemberData(nameof(Vectors))]
    public void Sign_WebhookVectorOverCanonicalFile_GivesTheExpectedV1Signature(string name)
    {
        // Arrange
        var vector = WebhookVector.Load(name);
        var key = new SigningKey("vector", Convert.FromBase64String(vector.Key));
        var canonical = new ReadOnlySequence<byte>(vector.Vector.Canonical);

        // Act
        var signature = StandardWebhooks.Sign(key, vector.Id, vector.Timestamp, canonical);

        // Assert
        Assert.Equal(vector.Signature, StandardWebhooks.VersionPrefix + signature.ToBase64());
    }

    [Theory]
    [MemberData(nameof(Vectors))]
    public async Task SignAsync_WebhookVectorInputAtItsTimestamp_WebhookHeaderAndHexSignatureBothMatch(string name)
    {
        // Arrange: the whole signer, from input.json, with the clock at the vector's timestamp.
        var vector = WebhookVector.Load(name);
        var time = new FakeTimeProvider(DateTimeOffset.FromUnixTimeSeconds(vector.Timestamp));
        var key = new SigningKey("vector", Convert.FromBase64String(vector.Key));
        var signer = _services.CreateSigner(new FixedReceiverKeySource(key), time: time);
        var envelope = _services.Read(vector.Vector.Input);

        // Act
        using var signed = await signer.SignAsync(envelope, SigningTestExtensions.Request(webhookId: vector.Id), CancellationToken.None);

        // Assert: the new header, and the old hex signature unchanged (the same key as the vectors' key.b64).
        Assert.Equal(vector.Id, signed.Webhook!.Id);
        Assert.Equal(vector.Timestamp, signed.Webhook!.Timestamp);
        Assert.Equal(vector.Signature, signed.Webhook!.Signature);
        Assert.Equal(vector.Vector.SignatureHex, signed.Signature.ToHex());
    }

    [Theory]
    [MemberData(nameof(Vectors))]
    public void Secret_WebhookVector_IsWhsecPrefixAndTheSameKeyBase64(string name)
    {
        var vector = WebhookVector.Load(name);

        Assert.Equal("whsec_" + vector.Key, vector.Secret);
        Assert.Equal(Vector.KeyBase64, vector.Key);
    }

    [Fact]
    public void Vectors_AreAllPresent_OnePerPositiveCase()
    {
        var positive = Vector.All().Where(v => !v.Reject).Select(v => v.Name).ToHashSet(StringComparer.Ordinal);
        var webhook = Directory.GetFiles(WebhookVector.Root, "*.json").Select(f => Path.GetFileNameWithoutExtension(f)!).ToList();

        Assert.True(webhook.Count >= 9, "expected the shared webhook vectors to be copied");
        Assert.All(webhook, name => Assert.Contains(name, positive));
    }

    [Fact]
    public async Task SignAsync_StagedKey_AddsALabelledHexAndASecondV1Entry()
    {
        // Arrange
        var vector = WebhookVector.Load("one-widget");
        var time = new FakeTimeProvider(DateTimeOffset.FromUnixTimeSeconds(vector.Timestamp));
        var current = new SigningKey("current-version", Convert.FromBase64String(vector.Key));
        var staged = new SigningKey("staged-version", System.Security.Cryptography.RandomNumberGenerator.GetBytes(32));
        var signer = _services.CreateSigner(new FixedReceiverKeySource(current, staged), time: time);
        var envelope = _services.Read(vector.Vector.Input);

        // Act
        using var signed = await signer.SignAsync(envelope, SigningTestExtensions.Request(webhookId: vector.Id), CancellationToken.None);

        // Assert
        var entries = signed.Webhook!.Signature.Split(' ');
        Assert.Equal(2, entries.Length);
        Assert.Equal(vector.Signature, entries[0]);
        Assert.Equal(StandardWebhooks.VersionPrefix + StandardWebhooks.Sign(staged, vector.Id, vector.Timestamp, signed.GetCanonicalBytes()).ToBase64(), entries[1]);
        Assert.Equal(vector.Vector.SignatureHex, signed.Signature.ToHex());
        Assert.Collection(
            signed.Signatures,
            s => Assert.Equal(("current-version", KeyState.Current, vector.Vector.SignatureHex), (s.KeyId, s.State, s.Signature.ToHex())),
            s => Assert.Equal(("staged-version", KeyState.Staged, staged.Sign(signed.GetCanonicalBytes()).ToHex()), (s.KeyId, s.State, s.Signature.ToHex())));
    }
}
