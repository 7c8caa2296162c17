using System.Buffers;
using Microsoft.IO;
using WidgetSigning.Envelopes;
using WidgetSigning.Hashing;
using WidgetSigning.Primitives;

namespace WidgetSigning.SpareCores;

/// <summary>
/// The one pass that writes an envelope's canonical form and feeds every MAC as the bytes are committed, on the
/// caller's core, or with a spare one when <see cref="SpareCorePolicy"/> says it pays. The signer asks this alone; the
/// bytes and MACs are the same whichever way the work is shared. Everything in this folder is that choice: a reader of
/// the signing path may skip it and read a pass as "write, hashing as you go".
/// </summary>
internal sealed class CanonicalPass
{
    // 16 KB chunks start the hashing on the other core sooner than 64 KB blocks.
    private const int OverlapChunkBytes = 16 * 1024;

    // The hand-over array behind the reader is presized from the body (like the reader's own list) up to this.
    private const int MaxHandOverWidgets = 8 * 1024;

    private readonly SpareCorePolicy _spareCores;

    /// <summary>Creates the pass; <paramref name="spareCores"/> says when a second core may help.</summary>
    public CanonicalPass(SpareCorePolicy spareCores)
    {
        ArgumentNullException.ThrowIfNull(spareCores);
        _spareCores = spareCores;
    }

    /// <summary>
    /// Reads the envelope in <paramref name="body"/> (seekable; from its position) with <paramref name="reader"/>, writing
    /// each run of widgets to <paramref name="destination"/> as soon as it is read and hashing it into
    /// <paramref name="hashes"/>. With a spare core, a helper writes behind the reader (<see cref="SigningPipeline"/>) and
    /// scans a pooled body's bytes ahead of it (<see cref="ScanAheadStream"/>); without, the reader's thread writes each
    /// run. No widget outlives its run, and a failure to write is thrown only once reading has succeeded.
    /// </summary>
    /// <returns>The number of widgets.</returns>
    /// <exception cref="ProblemException"><see cref="Problems.Types.InvalidEnvelope"/>: the body is not a valid envelope.</exception>
    public int ReadBehind(Stream body, WidgetEnvelopeReader reader, IBufferWriter<byte> destination, HashTargets hashes)
    {
        var bytes = body.Length - body.Position;
        using var inFlight = _spareCores.Enter();
        var helper = inFlight.SpareCoreFor(bytes);
        SigningPipeline? pipeline = null;
        try
        {
            pipeline = new SigningPipeline(
                new HashingBufferWriter(destination, hashes), (int)Math.Min(bytes / CanonicalUtf8Writer.MinimumWidgetBytes, MaxHandOverWidgets), _spareCores, inline: !helper);
            if (helper)
            {
                pipeline.Start();
            }

            if (helper && body is RecyclableMemoryStream pooled)
            {
                // The spare core also scans the body's blocks ahead of the reader (~0.8 ms of a 1 MB body), beside the
                // pipeline's helper, which mostly sleeps between runs.
                ScanAheadStream.ReadInto(reader, pooled, pipeline, _spareCores.Counters);
            }
            else
            {
                reader.ReadInto(body, pipeline);
            }

            pipeline.Complete();
            return pipeline.Count;
        }
        catch
        {
            pipeline?.Abandon();
            throw;
        }
    }

    /// <summary>
    /// Reads the envelope in <paramref name="body"/> whole, to be signed once read (<see cref="Write"/>), counted as a
    /// signature in flight while it reads: this core is busy, so no other signature should count on it as spare.
    /// </summary>
    /// <exception cref="ProblemException"><see cref="Problems.Types.InvalidEnvelope"/>: the body is not a valid envelope.</exception>
    public WidgetEnvelope Read(Stream body, WidgetEnvelopeReader reader)
    {
        using var inFlight = _spareCores.Enter();
        return reader.Read(body);
    }

    /// <summary>
    /// Writes <paramref name="envelope"/> to <paramref name="destination"/>, hashing into <paramref name="hashes"/>; with a
    /// spare core for its <paramref name="estimate"/>d size, the hashing is shared with that core
    /// (<see cref="OverlappedHashingBufferWriter"/>) so both finish together.
    /// </summary>
    public void Write(WidgetEnvelope envelope, IBufferWriter<byte> destination, HashTargets hashes, long estimate)
    {
        using var inFlight = _spareCores.Enter();
        if (inFlight.SpareCoreFor(estimate))
        {
            _spareCores.Counters.HashingShared(
                OverlappedHashingBufferWriter.Write(destination, hashes, OverlapChunkBytes, envelope, static (blocks, e) => CanonicalUtf8Writer.Write(e, blocks)));
        }
        else
        {
            CanonicalUtf8Writer.Write(envelope, new HashingBufferWriter(destination, hashes));
        }
    }

    /// <summary>
    /// Runs <paramref name="count"/> independent jobs over <paramref name="bytes"/> already written (Ed25519's signatures,
    /// each reading them whole), here, or shared with a spare core when one pays for that many bytes: both cores take the
    /// next job until none is left.
    /// </summary>
    public void Run(int count, long bytes, Action<int> job)
    {
        ArgumentNullException.ThrowIfNull(job);
        using var inFlight = _spareCores.Enter();
        if (count < 2 || !inFlight.SpareCoreFor(bytes))
        {
            for (var i = 0; i < count; i++)
            {
                job(i);
            }

            return;
        }

        var next = -1;
        void Drain()
        {
            int i;
            while ((i = Interlocked.Increment(ref next)) < count)
            {
                job(i);
            }
        }

        var helper = Task.Run(Drain);
        Drain();
        helper.GetAwaiter().GetResult();
    }
}
