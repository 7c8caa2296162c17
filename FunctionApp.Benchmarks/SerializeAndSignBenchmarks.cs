using System.Security.Cryptography;
using System.Text;
using BenchmarkDotNet.Attributes;
using FunctionApp.Benchmarks.Infrastructure;
using FunctionApp.Benchmarks.Seed;
using FunctionApp.Benchmarks.Variants;
using WidgetSigning.Envelopes;
using WidgetSigning.Signing;
using Newtonsoft.Json;

namespace FunctionApp.Benchmarks;

/// <summary>
/// The seed's table on the seed's envelope (3,000 widgets, ~1 MB): its three methods, our signer (both signature forms,
/// and each form alone), and the limits our signer chases (serializing alone, one HMAC, both MACs), and the machine's
/// two-core hashing scaling (one HMAC on one thread against one on each of two threads at once), from which
/// <see cref="TwoCoreFloors"/> reports the floors of <c>EnvelopeSigner_Sign</c>.
/// </summary>
[MemoryDiagnoser]
public class SerializeAndSignBenchmarks
{
    private static readonly UTF8Encoding Utf8NoBom = new(encoderShouldEmitUTF8Identifier: false);

    private BenchmarkData _data = null!;
    private EnvelopeSigner _signer = null!;
    private EnvelopeSigner _oneCoreSigner = null!;
    private Microsoft.IO.RecyclableMemoryStreamManager _streams = null!;
    private byte[] _canonical = null!;
    private byte[] _webhookPrefix = null!;
    private WidgetSigning.Keys.ReceiverId[] _twoReceivers = null!;
    private WidgetSigning.Keys.ReceiverId[] _eightReceivers = null!;
    private HashPartner? _partner;

    /// <summary>Builds the envelope and checks that every method signs the same bytes.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _data = BenchmarkData.Create(BenchmarkData.SeedWidgetCount);
        _signer = SignerFactory.Create(out _streams);
        _oneCoreSigner = SignerFactory.Create(_streams, SignerFactory.OneCore);
        SignatureGuard.EnsureSameSignature(_data, _signer);
        SignatureGuard.EnsureSameSignature(_data, _oneCoreSigner);
        SignatureGuard.EnsureEachFormAlone(_data, _signer);
        _twoReceivers = BenchmarkSigning.Receivers(2);
        _eightReceivers = BenchmarkSigning.Receivers(8);
        _webhookPrefix = Encoding.ASCII.GetBytes(StandardWebhooks.NewId() + "." + DateTimeOffset.UtcNow.ToUnixTimeSeconds() + ".");
        using var canonical = new MemoryStream();
        CanonicalUtf8Writer.Write(_data.Ours, canonical);
        _canonical = canonical.ToArray();
    }

    /// <summary>Seed: <c>JsonConvert.SerializeObject</c>, <c>Encoding.UTF8.GetBytes</c>, <c>ComputeHash(byte[])</c>.</summary>
    [Benchmark(Baseline = true)]
    public string SerializeToStringAndSign() => SeedSerializeAndSign.SerializeToStringAndSign(_data.Seed);

    /// <summary>Seed: serialize into a new <see cref="MemoryStream"/>, <c>ComputeHash(Stream)</c>.</summary>
    [Benchmark]
    public string SerializeToMemoryStreamAndSign() => SeedSerializeAndSign.SerializeToMemoryStreamAndSign(_data.Seed);

    /// <summary>Seed: serialize into a pooled stream from a default manager, <c>ComputeHash(Stream)</c>.</summary>
    [Benchmark]
    public string SerializeToRecyclableMemoryStreamAndSign() => SeedSerializeAndSign.SerializeToRecyclableMemoryStreamAndSign(_data.Seed);

    /// <summary>
    /// Ours: <see cref="EnvelopeSigner.SignAsync(WidgetSigning.Envelopes.WidgetEnvelope, SignRequest, CancellationToken)"/> (canonical
    /// writer into pooled blocks, pooled HMACs), both forms (the default), then hex. Goal: ≤ 1.10× the two-core
    /// floor max(HMAC, (writer + both MACs) ÷ 2).
    /// </summary>
    [Benchmark]
    public string EnvelopeSigner_Sign()
    {
        using var signed = _signer.Sign(_data.Ours);
        return signed.Signature.ToHex();
    }

    /// <summary>
    /// Ours for two receivers, each with its own key: one write of the canonical bytes feeding four MAC chains (two forms
    /// per receiver). Goal: ≤ 1.10× max(one MAC chain, (writer + 4 chains) ÷ 2).
    /// </summary>
    [Benchmark]
    public string EnvelopeSigner_Sign_TwoReceivers()
    {
        using var signed = _signer.Sign(_data.Ours, _twoReceivers);
        return signed.Receivers[1].Signatures[0].Signature.ToHex();
    }

    /// <summary>Ours for eight receivers: one write feeding sixteen MAC chains. Goal: ≤ 1.10× max(one chain, (writer + 16 chains) ÷ 2).</summary>
    [Benchmark]
    public string EnvelopeSigner_Sign_EightReceivers()
    {
        using var signed = _signer.Sign(_data.Ours, _eightReceivers);
        return signed.Receivers[7].Signatures[0].Signature.ToHex();
    }

    /// <summary>
    /// Ours with the plain form alone (<c>?forms=plain</c>): one MAC chain, <c>X-Signature</c>'s, shared with the
    /// writing over two cores when one is spare. Goal: ≤ 1.05× <see cref="Limit_HmacSha256_CanonicalBytes"/>.
    /// </summary>
    [Benchmark]
    public string EnvelopeSigner_Sign_PlainOnly()
    {
        using var signed = _signer.Sign(_data.Ours, SignatureForms.Plain);
        return signed.Signature.ToHex();
    }

    /// <summary>
    /// Ours with the Standard Webhooks form alone (<c>?forms=webhook</c>, a new <c>msg_</c> id): one MAC chain
    /// over <c>id.timestamp.</c> + the bytes. Goal: ≤ 1.05× <see cref="Limit_HmacSha256_CanonicalBytes"/>.
    /// </summary>
    [Benchmark]
    public string EnvelopeSigner_Sign_WebhookOnly()
    {
        using var signed = _signer.Sign(_data.Ours, SignatureForms.Webhook);
        return signed.Webhook!.Signature;
    }

    /// <summary>Ours on one core with the plain form alone: the writer and one MAC, nothing handed to another thread.</summary>
    [Benchmark]
    public string EnvelopeSigner_Sign_OneCore_PlainOnly()
    {
        using var signed = _oneCoreSigner.Sign(_data.Ours, SignatureForms.Plain);
        return signed.Signature.ToHex();
    }

    /// <summary>
    /// Ours on one core: the canonical bytes written once into the pooled blocks while every MAC a signature
    /// carries (<c>X-Signature</c> and the Standard Webhooks form) is fed from them, nothing handed to another thread.
    /// </summary>
    [Benchmark]
    public string EnvelopeSigner_Sign_OneCore()
    {
        using var signed = _oneCoreSigner.Sign(_data.Ours);
        return signed.Signature.ToHex();
    }

    /// <summary>Limit: our canonical UTF-8 writer alone (through its staging buffer) into <see cref="Stream.Null"/>.</summary>
    [Benchmark]
    public void Limit_CanonicalWriter_StreamNull() => CanonicalUtf8Writer.Write(_data.Ours, Stream.Null);

    /// <summary>Limit, for reference: the seed's reflection-based <see cref="JsonSerializer"/> alone into <see cref="Stream.Null"/>.</summary>
    [Benchmark]
    public void Limit_JsonSerializer_StreamNull()
    {
        using var writer = new StreamWriter(Stream.Null, Utf8NoBom, leaveOpen: true);
        SeedSerializeAndSign.Serializer.Serialize(writer, _data.Seed);
    }

    /// <summary>Limit: HMAC-SHA256 alone over the canonical bytes, already in one array.</summary>
    [Benchmark]
    public byte[] Limit_HmacSha256_CanonicalBytes() => HMACSHA256.HashData(BenchmarkData.KeyBytes, _canonical);

    /// <summary>Limit: both MACs a signature carries, one after the other over the canonical bytes in one array.</summary>
    [Benchmark]
    public int Limit_BothMacs_CanonicalBytes() => SigningVariants.BothMacsOneAfterTheOther(_canonical, _webhookPrefix);

    /// <summary>
    /// Limit: every hash a signature computes, one after the other over the canonical bytes in one array: both MACs
    /// and the SHA-256 its audit record carries (<c>canonicalSha256</c>, docs/audit-trail.md). With the writer, the
    /// one-core floor.
    /// </summary>
    [Benchmark]
    public int Limit_BothMacsAndDigest_CanonicalBytes() =>
        SigningVariants.BothMacsOneAfterTheOther(_canonical, _webhookPrefix) + SHA256.HashData(_canonical)[0];

    /// <summary>Scaling: one HMAC-SHA256 over the canonical bytes on this thread, as the two-thread row does on each thread.</summary>
    [Benchmark]
    public byte Scaling_HmacSha256_OneThread()
    {
        Span<byte> mac = stackalloc byte[HMACSHA256.HashSizeInBytes];
        HMACSHA256.HashData(BenchmarkData.KeyBytes, _canonical, mac);
        return mac[0];
    }

    /// <summary>
    /// Scaling: the same HMAC on this thread and on a partner thread at once; two cores that scale perfectly take as long
    /// as one thread's hash, so s = 2·t(one thread) / t(this row).
    /// </summary>
    [Benchmark]
    public byte Scaling_HmacSha256_TwoThreadsAtOnce()
    {
        _partner ??= new HashPartner(_canonical);
        _partner.Start();
        Span<byte> mac = stackalloc byte[HMACSHA256.HashSizeInBytes];
        HMACSHA256.HashData(BenchmarkData.KeyBytes, _canonical, mac);
        _partner.Wait();
        return mac[0];
    }

    /// <summary>Stops the two-thread row's partner, if that row ran.</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _partner?.Dispose();
        _partner = null;
    }
}
