using System.Buffers;
using System.Security.Cryptography;
using System.Text;
using FunctionApp.Tests.TestKit;
using Newtonsoft.Json;
using WidgetSigning.Envelopes;
using WidgetSigning.Keys;
using WidgetSigning.SpareCores;
using WidgetSigning.Signing;
using WidgetSigning.Tests.Support;
using WidgetSigning.Primitives;

namespace WidgetSigning.Tests.Signing;

/// <summary>
/// Writing and hashing behind the reader (<c>EnvelopeSigner.SignAsync</c> over a body) signs exactly what
/// reading then signing signs, keeps the reader's errors first, returns every pooled block, and respects the budget.
/// Each case runs with a spare core for any size (<see cref="TestServices.Eager"/>), with no core spare (the
/// reader's thread writes each run as it is read), and with reading first, then signing (the keys not at hand yet).
/// </summary>
public sealed class ReadAndSignTests
{
    private const string WebhookId = "msg_test";

    // Behind the reader on a spare core; on the reader's thread run by run (no core spare); after reading (keys late).
    private const string Helper = "helper";
    private const string Inline = "inline";
    private const string After = "after";

    public static TheoryData<string, string> PositiveVectorsEveryWay()
    {
        var data = new TheoryData<string, string>();
        foreach (var name in Vector.Names(reject: false))
        {
            data.Add(name, Helper);
            data.Add(name, Inline);
            data.Add(name, After);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(PositiveVectorsEveryWay))]
    public async Task SignAsync_PositiveVector_ExactBytesAndEveryMac(string name, string mode)
    {
        // Arrange
        var services = new TestServices();
        var signer = CreateSigner(services, mode);
        var vector = Vector.Load(name);
        using var body = new MemoryStream(vector.Input, writable: false);

        // Act
        var signed = await signer.SignAsync(body, Request(), CancellationToken.None);
        var canonical = signed.GetCanonicalBytes().ToArray();
        signed.Dispose();

        // Assert: the canonical bytes and X-Signature from the vector; the Standard Webhooks MAC computed here from the spec.
        Assert.Equal(vector.Canonical, canonical);
        Assert.Equal(vector.SignatureHex, signed.Signature.ToHex());
        Assert.Equal(vector.WidgetCount, signed.WidgetCount);
        Assert.Equal(ExpectedWebhookSignature(vector.Canonical, signed.Webhook!.Timestamp), signed.Webhook!.Signature);
        Assert.Equal(0, PoolInUse(services));
    }

    [Theory]
    [InlineData(Helper)]
    [InlineData(Inline)]
    public async Task SignAsync_RandomEnvelopesWhileReading_SameAsReadThenSign(string mode)
    {
        // Arrange
        var services = new TestServices();
        var behind = CreateSigner(services, mode);
        var after = CreateSigner(services, After);

        for (var seed = 0; seed < 40; seed++)
        {
            var body = Serialize(RandomEnvelopes.Create(seed, widgets: 1 + (seed * 37 % 400)).Ours);

            // Act
            await using var one = await behind.SignAsync(new MemoryStream(body, writable: false), Request(), CancellationToken.None);
            await using var other = await after.SignAsync(new MemoryStream(body, writable: false), Request(), CancellationToken.None);

            // Assert
            Assert.Equal(other.GetCanonicalBytes().ToArray(), one.GetCanonicalBytes().ToArray());
            Assert.Equal(other.Signature, one.Signature);
            Assert.Equal(ExpectedWebhookSignature(other.GetCanonicalBytes().ToArray(), one.Webhook!.Timestamp), one.Webhook!.Signature);
        }
    }

    [Fact]
    public async Task SignAsync_StagedKeyBehindTheReader_LabelsEveryKeysMacs()
    {
        // Arrange: a rotation in progress, so four MACs are fed at once.
        var services = new TestServices();
        var staged = new SigningKey("next", Enumerable.Range(100, 32).Select(i => (byte)i).ToArray());
        var signer = services.CreateSigner(new FixedReceiverKeySource(services.Key, staged), TestServices.Eager);
        var vector = Vector.Load("seed-3000-widgets");

        // Act
        await using var signed = await signer.SignAsync(new MemoryStream(vector.Input, writable: false), Request(), CancellationToken.None);

        // Assert
        Assert.Equal(vector.SignatureHex, signed.Signatures[0].Signature.ToHex());
        Assert.Equal(Convert.ToHexString(HMACSHA256.HashData(Enumerable.Range(100, 32).Select(i => (byte)i).ToArray(), vector.Canonical)).ToLowerInvariant(), signed.Signatures[1].Signature.ToHex());
        Assert.Equal("next", signed.Signatures[1].KeyId);
        Assert.Equal(2, signed.Webhook!.Signature.Split(' ').Length);
    }

    [Theory]
    [InlineData(Helper)]
    [InlineData(Inline)]
    [InlineData(After)]
    public async Task SignAsync_IdempotencyKeyWithStagedKey_DerivedIdAndEveryKeysWebhookMacOverIt(string mode)
    {
        // Arrange: a rotation in progress and a derived id, behind the reader or after it.
        var services = new TestServices();
        var stagedKey = Enumerable.Range(100, 32).Select(i => (byte)i).ToArray();
        var signer = services.CreateSigner(KeysFor(new FixedReceiverKeySource(services.Key, new SigningKey("next", stagedKey)), mode), SpareCoresFor(mode));
        var vector = Vector.Load("seed-3000-widgets");

        // Act
        await using var signed = await signer.SignAsync(
            new MemoryStream(vector.Input, writable: false),
            new SignRequest { Receivers = [SigningTestExtensions.DefaultReceiver], IdSeed = WebhookIdSeed.FromIdempotencyKey("order-42") },
            CancellationToken.None);

        // Assert: the documented id, and each key's v1 entry the spec's formula over it.
        var id = DerivedWebhookId.ForIdempotencyKey("order-42", vector.Canonical);
        var timestamp = signed.Webhook!.Timestamp.ToString(System.Globalization.CultureInfo.InvariantCulture);
        Assert.Equal(id, signed.Webhook!.Id);
        Assert.Equal(vector.SignatureHex, signed.Signatures[0].Signature.ToHex());
        Assert.Equal(
            DerivedWebhookId.WebhookSignature(Vector.Key, id, timestamp, vector.Canonical) + " " + DerivedWebhookId.WebhookSignature(stagedKey, id, timestamp, vector.Canonical),
            signed.Webhook!.Signature);
    }

    [Theory]
    [InlineData(Helper)]
    [InlineData(Inline)]
    [InlineData(After)]
    public async Task SignAsync_InvalidWidgetLateInTheBody_RejectsWithItsPathAndReturnsEveryBlock(string mode)
    {
        // Arrange: the seed envelope with widget 2,500's id broken; by then the pipeline has written ~2,400 widgets.
        var services = new TestServices();
        var signer = CreateSigner(services, mode);
        var body = BreakWidgetId(Vector.Load("seed-3000-widgets").Input, 2500);
        var budget = new EnvelopeMemoryBudget(64L * 1024 * 1024, TimeSpan.Zero);
        var lease = budget.Lease();

        // Act
        var error = await ProblemAssert.ThrowsAsync(Problems.Types.InvalidEnvelope, async () =>
            await signer.SignAsync(new MemoryStream(body, writable: false), Request(lease), CancellationToken.None));
        lease.Dispose();

        // Assert
        Assert.True(error.Problem.JsonPath == "$.widgets[2500].id", error.Message + " at " + error.Problem.JsonPath);
        Assert.Equal(0, PoolInUse(services));
        Assert.Equal(0, budget.InUse);
    }

    [Theory]
    [InlineData(Helper)]
    [InlineData(Inline)]
    [InlineData(After)]
    public async Task SignAsync_AmplifyingBodyInvalidAtTheEnd_RejectsForTheBodyNotForItsSize(string mode)
    {
        // Arrange (attack): every value is U+0085, which the canonical form escapes to six bytes, so the canonical limit is
        // passed early behind the reader; the body is also invalid at its end. The reader's answer must win, as without the pipeline.
        var services = new TestServices();
        var signer = CreateSigner(services, mode, maxCanonicalBytes: 256 * 1024);
        var body = AmplifyingBody(widgets: 400, invalidLast: true);

        // Act
        var error = await ProblemAssert.ThrowsAsync(Problems.Types.InvalidEnvelope, async () =>
            await signer.SignAsync(new MemoryStream(body, writable: false), Request(), CancellationToken.None));

        // Assert
        Assert.Equal("$.widgets[399].id", error.Problem.JsonPath);
        Assert.Equal(0, PoolInUse(services));
    }

    [Theory]
    [InlineData(Helper)]
    [InlineData(Inline)]
    [InlineData(After)]
    public async Task SignAsync_AmplifyingValidBody_IsTooLargeAndReturnsEveryBlock(string mode)
    {
        // Arrange (attack): as above, valid to the end: the canonical limit is the answer, whichever thread passed it.
        var services = new TestServices();
        var signer = CreateSigner(services, mode, maxCanonicalBytes: 256 * 1024);
        var body = AmplifyingBody(widgets: 400, invalidLast: false);

        // Act
        await ProblemAssert.ThrowsAsync(Problems.Types.CanonicalTooLarge, async () =>
            await signer.SignAsync(new MemoryStream(body, writable: false), Request(), CancellationToken.None));

        // Assert
        Assert.Equal(0, PoolInUse(services));
    }

    [Fact]
    public async Task SignAsync_BudgetWithRoomForBodyOrCanonicalButNotBoth_ReadsThenSigns()
    {
        // Arrange: the body's ~1.2 MB held; behind the reader would need that plus ~1.2 MB more, which the budget lacks.
        var services = new TestServices();
        var signer = CreateSigner(services, Helper);
        var vector = Vector.Load("seed-3000-widgets");
        var budget = new EnvelopeMemoryBudget(2L * 1024 * 1024, TimeSpan.Zero);
        using var lease = budget.Lease();
        lease.Cover(vector.Input.Length);

        // Act
        await using var signed = await signer.SignAsync(new MemoryStream(vector.Input, writable: false), Request(lease), CancellationToken.None);

        // Assert: signed (not a 503), within the budget.
        Assert.Equal(vector.SignatureHex, signed.Signature.ToHex());
        Assert.True(budget.InUse <= budget.Capacity);
    }

    [Theory]
    [InlineData(Helper)]
    [InlineData(Inline)]
    [InlineData(After)]
    public async Task SignAsync_BodyHeldByTheLease_BodyDisposedAndOnlyTheCanonicalChargeKept(string mode)
    {
        // Arrange: the lease holds the body's charge, as the HTTP path's does.
        var services = new TestServices();
        var signer = CreateSigner(services, mode);
        var vector = Vector.Load("seed-3000-widgets");
        var budget = new EnvelopeMemoryBudget(64L * 1024 * 1024, TimeSpan.Zero);
        var lease = budget.Lease();
        lease.Cover(vector.Input.Length + (512 * 1024));
        var body = new MemoryStream(vector.Input, writable: false);

        // Act
        var signed = await signer.SignAsync(body, Request(lease), CancellationToken.None);
        var charged = budget.InUse;
        signed.Dispose();

        // Assert: the body is the signer's to return; what stays charged is the canonical form's whole blocks.
        Assert.False(body.CanRead);
        Assert.Equal(vector.SignatureHex, signed.Signature.ToHex());
        Assert.InRange(charged, vector.Canonical.Length, vector.Input.Length + (64 * 1024));
        Assert.Equal(0, budget.InUse);
    }

    [Fact]
    public async Task SignAsync_ManyAtOnceBehindTheReader_EachSignatureIsItsOwn()
    {
        // Arrange: more pipelines than cores, so some helpers start late or never (the reader's thread writes it all then).
        var services = new TestServices();
        var signer = CreateSigner(services, Helper);
        var bodies = Enumerable.Range(0, 24).Select(i => Serialize(RandomEnvelopes.Create(1000 + i, 300 + (i * 11)).Ours)).ToArray();
        var expected = bodies.Select(b =>
        {
            using var signed = services.Signer.SignWith(services.Read(b));
            return signed.Signature.ToHex();
        }).ToArray();

        // Act
        var actual = await Task.WhenAll(bodies.Select(b => Task.Run(async () =>
        {
            await using var signed = await signer.SignAsync(new MemoryStream(b, writable: false), Request(), CancellationToken.None);
            return signed.Signature.ToHex();
        })));

        // Assert
        Assert.Equal(expected, actual);
        Assert.Equal(0, PoolInUse(services));
    }

    private static EnvelopeSigner CreateSigner(TestServices services, string mode, long? maxCanonicalBytes = null) =>
        services.CreateSigner(
            KeysFor(services.KeySource, mode),
            SpareCoresFor(mode),
            new EnvelopeOptions { MaxCanonicalBytes = maxCanonicalBytes ?? EnvelopeOptions.DefaultMaxCanonicalBytes });

    // After reading: the keys are not at hand when reading starts, so the signer reads first, as production does then.
    private static IReceiverKeySource KeysFor(IReceiverKeySource keys, string mode) => mode == After ? new LateReceiverKeySource(keys) : keys;

    private static SpareCoreOptions SpareCoresFor(string mode) => mode == Helper ? TestServices.Eager : TestServices.OneCore;

    // The default receiver from the signer's key source, under the fixed webhook id.
    private static SignRequest Request(EnvelopeBudgetLease? lease = null) =>
        new() { Receivers = [SigningTestExtensions.DefaultReceiver], WebhookId = WebhookId, Lease = lease };

    private static long PoolInUse(TestServices services) => services.Streams.SmallPoolInUseSize + services.Streams.LargePoolInUseSize;

    private static string ExpectedWebhookSignature(byte[] canonical, long timestamp)
    {
        var content = Encoding.ASCII.GetBytes($"{WebhookId}.{timestamp}.").Concat(canonical).ToArray();
        return "v1," + Convert.ToBase64String(HMACSHA256.HashData(Vector.Key, content));
    }

    private static byte[] Serialize(WidgetEnvelope envelope) => Encoding.UTF8.GetBytes(JsonConvert.SerializeObject(new
    {
        widgets = envelope.Widgets.Select(w => new
        {
            id = w.Id,
            property0 = w.Property0, property1 = w.Property1, property2 = w.Property2, property3 = w.Property3, property4 = w.Property4,
            property5 = w.Property5, property6 = w.Property6, property7 = w.Property7, property8 = w.Property8, property9 = w.Property9,
            createdUtc = w.CreatedUtc,
        }),
    }, new JsonSerializerSettings { DateTimeZoneHandling = DateTimeZoneHandling.Utc }));

    private static byte[] BreakWidgetId(byte[] body, int widget)
    {
        var text = Encoding.UTF8.GetString(body);
        var at = -1;
        for (var i = 0; i <= widget; i++)
        {
            at = text.IndexOf("\"id\": \"", at + 1, StringComparison.Ordinal);
        }

        return Encoding.UTF8.GetBytes(text[..(at + 7)] + "not-a-guid" + text[(at + 7 + 36)..]);
    }

    private static byte[] AmplifyingBody(int widgets, bool invalidLast)
    {
        var value = new string('\u0085', 100);
        var builder = new StringBuilder("{\"widgets\":[");
        for (var i = 0; i < widgets; i++)
        {
            builder.Append(i > 0 ? "," : string.Empty)
                .Append("{\"id\":\"").Append(invalidLast && i == widgets - 1 ? "nope" : Guid.NewGuid().ToString()).Append('"');
            for (var p = 0; p < 10; p++)
            {
                builder.Append(",\"property").Append(p).Append("\":\"").Append(value).Append('"');
            }

            builder.Append(",\"createdUtc\":\"2026-11-23T00:00:00Z\"}");
        }

        return Encoding.UTF8.GetBytes(builder.Append("]}").ToString());
    }
}
