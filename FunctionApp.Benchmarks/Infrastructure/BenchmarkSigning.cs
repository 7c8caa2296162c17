using WidgetSigning.Envelopes;
using WidgetSigning.Keys;
using WidgetSigning.Signing;

namespace FunctionApp.Benchmarks.Infrastructure;

/// <summary>The benchmarks' calls into the signer, through its one request type; the keys are the signer's (<see cref="SignerFactory"/>).</summary>
internal static class BenchmarkSigning
{
    /// <summary>The receivers besides the default one that <see cref="SignerFactory"/>'s signers hold keys for.</summary>
    public const int ReceiverCount = 8;

    /// <summary>The receiver the benchmarks sign for: the default one, whose key is <see cref="BenchmarkData.Key"/>.</summary>
    public static readonly ReceiverId Receiver = ReceiverId.Parse("default");

    /// <summary>Signs <paramref name="envelope"/> for the default receiver (completes synchronously: the keys are in memory).</summary>
    public static SignedEnvelope Sign(this EnvelopeSigner signer, WidgetEnvelope envelope, SignatureForms forms = SignatureForms.Both) =>
        signer.Sign(envelope, [Receiver], forms);

    /// <summary>Signs <paramref name="envelope"/> for every one of <paramref name="receivers"/> at once, each with its own key.</summary>
    public static SignedEnvelope Sign(this EnvelopeSigner signer, WidgetEnvelope envelope, ReceiverId[] receivers, SignatureForms forms = SignatureForms.Both)
    {
        ArgumentNullException.ThrowIfNull(signer);
        var pending = signer.SignAsync(envelope, new SignRequest { Receivers = receivers, Forms = forms }, CancellationToken.None);
        return pending.IsCompletedSuccessfully ? pending.Result : pending.AsTask().GetAwaiter().GetResult();
    }

    /// <summary>The first <paramref name="count"/> receivers of their own (<c>r0</c>, <c>r1</c>, …).</summary>
    public static ReceiverId[] Receivers(int count) => [.. Enumerable.Range(0, count).Select(i => ReceiverId.Parse($"r{i}"))];
}
