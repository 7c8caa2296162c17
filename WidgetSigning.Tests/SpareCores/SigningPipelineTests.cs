using System.Buffers;
using FunctionApp.Tests.TestKit;
using WidgetSigning.Envelopes;
using WidgetSigning.SpareCores;

namespace WidgetSigning.Tests.SpareCores;

/// <summary>The hand-over behind the reader writes the same bytes whoever writes them, and however the widgets arrive.</summary>
public sealed class SigningPipelineTests
{
    [Theory]
    [InlineData(false, 0)]
    [InlineData(false, 1)]
    [InlineData(true, 1)]
    [InlineData(true, SigningPipeline.Batch - 1)]
    [InlineData(true, SigningPipeline.Batch * 7)]
    [InlineData(true, 3000)]
    public void Complete_AnyCountWithOrWithoutTheHelper_WritesTheCanonicalBytes(bool startHelper, int widgets)
    {
        // Arrange: without the helper, the reader's thread writes it all in Complete (what a busy thread pool gives).
        var envelope = RandomEnvelopes.Create(seed: widgets, widgets).Ours;
        var expected = Canonical(envelope);
        var destination = new ArrayBufferWriter<byte>();
        var pipeline = new SigningPipeline(destination, expectedWidgets: 1, TestServices.SpareCores(), inline: false);

        // Act: presized for one widget, so the hand-over array grows while the helper may be writing.
        if (startHelper)
        {
            pipeline.Start();
        }

        foreach (var widget in envelope.Widgets)
        {
            pipeline.Add(widget);
        }

        pipeline.Complete();

        // Assert
        Assert.Equal(expected, destination.WrittenSpan.ToArray());
        Assert.Equal(widgets, pipeline.Count);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(SigningPipeline.Batch - 1)]
    [InlineData(SigningPipeline.Batch)]
    [InlineData(SigningPipeline.Batch * 7)]
    [InlineData(3000)]
    public void Complete_InlineAnyCount_WritesTheCanonicalBytes(int widgets)
    {
        // Arrange: no core spare: the reader's thread writes each run as it is handed over.
        var envelope = RandomEnvelopes.Create(seed: widgets, widgets).Ours;
        var expected = Canonical(envelope);
        var destination = new ArrayBufferWriter<byte>();
        var pipeline = new SigningPipeline(destination, expectedWidgets: 1, TestServices.SpareCores(), inline: true);

        // Act
        foreach (var widget in envelope.Widgets)
        {
            pipeline.Add(widget);
        }

        var writtenBeforeComplete = destination.WrittenCount;
        pipeline.Complete();

        // Assert: every whole run was written before Complete, on the reader's thread; the rest and the closing after.
        Assert.Equal(expected, destination.WrittenSpan.ToArray());
        Assert.Equal(widgets, pipeline.Count);
        Assert.True(
            widgets < SigningPipeline.Batch ? writtenBeforeComplete <= 20 : writtenBeforeComplete > expected.Length * (widgets / SigningPipeline.Batch * SigningPipeline.Batch) / widgets / 2,
            $"{writtenBeforeComplete} of {expected.Length} bytes written before Complete");
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void Add_RunWrittenInlineOrByTheHelper_ItsWidgetsAreLetGo(bool inline)
    {
        // Arrange: a widget held until the end of the envelope survives every collection during reading, and
        // copying ~2.5 MB of them per 1 MB request into older generations was most of reading's GC time under load.
        var destination = new ArrayBufferWriter<byte>();
        var pipeline = new SigningPipeline(destination, expectedWidgets: 4 * SigningPipeline.Batch, TestServices.SpareCores(), inline: inline);
        if (!inline)
        {
            pipeline.Start();
        }

        var handedOver = new List<WeakReference<Widget>>();

        // Act: three runs handed over; with the helper, wait (10 s at most) until it has written the first two.
        for (var i = 0; i < 3 * SigningPipeline.Batch; i++)
        {
            handedOver.Add(AddNewWidget(pipeline, i));
        }

        // The helper lets a run's widgets go just after it counts the run's bytes written, so wait for that too.
        var waited = System.Diagnostics.Stopwatch.StartNew();
        int alive;
        while (true)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
            alive = handedOver.Take(2 * SigningPipeline.Batch).Count(w => w.TryGetTarget(out _));
            if (inline || alive == 0 || waited.ElapsedMilliseconds >= 10_000)
            {
                break;
            }

            Thread.Sleep(5);
        }

        pipeline.Complete();

        // Assert: nothing of the written runs is still reachable from the pipeline.
        Assert.Equal(0, alive);
    }

    [Fact]
    public void Complete_WriterFailsInline_ThrowsItAfterReadingAndWritesNothingMore()
    {
        // Arrange: the destination refuses after ~20 KB (as the canonical limit does), while the reader's thread writes.
        var envelope = RandomEnvelopes.Create(seed: 7, widgets: 2000).Ours;
        var destination = new RefusingWriter(limit: 20_000);
        var pipeline = new SigningPipeline(destination, expectedWidgets: 2000, TestServices.SpareCores(), inline: true);

        // Act: every widget is still taken (reading goes on, and its errors come first).
        foreach (var widget in envelope.Widgets)
        {
            pipeline.Add(widget);
        }

        var error = Assert.Throws<InvalidOperationException>(pipeline.Complete);

        // Assert
        Assert.Equal("refused", error.Message);
        Assert.Equal(2000, pipeline.Count);
        Assert.True(destination.Written <= 20_000 + (64 * 1024), $"wrote {destination.Written} bytes");
    }

    [Fact]
    public void Execute_ReaderPausesBetweenRunsAttack_HelperSleepsInsteadOfSpinning()
    {
        // Arrange: one run handed over, then the reader pauses, as it does for the ~200 µs of reading between two runs. A
        // helper that only spins and yields there takes the time slices of a reader that shares its core; it must sleep
        // instead, and still wake for the next run.
        var envelope = RandomEnvelopes.Create(seed: 30, widgets: 3 * SigningPipeline.Batch).Ours;
        var expected = Canonical(envelope);
        var destination = new ArrayBufferWriter<byte>();
        var cores = TestServices.SpareCores();
        var pipeline = new SigningPipeline(destination, expectedWidgets: envelope.Widgets.Count, cores, inline: false);
        pipeline.Start();

        // Act: the first run, a pause until the helper sleeps (10 s at most: a busy thread pool may start it late), then the rest.
        for (var i = 0; i < SigningPipeline.Batch; i++)
        {
            pipeline.Add(envelope.Widgets[i]);
        }

        var waited = System.Diagnostics.Stopwatch.StartNew();
        while (cores.Counters.Snapshot().HelperSleeps == 0 && waited.ElapsedMilliseconds < 10_000)
        {
            Thread.Sleep(5);
        }

        var sleptDuringThePause = cores.Counters.Snapshot().HelperSleeps;
        for (var i = SigningPipeline.Batch; i < envelope.Widgets.Count; i++)
        {
            pipeline.Add(envelope.Widgets[i]);
        }

        pipeline.Complete();

        // Assert: the same bytes, and the helper slept during the pause.
        Assert.Equal(expected, destination.WrittenSpan.ToArray());
        Assert.True(sleptDuringThePause > 0, "the helper did not sleep within a 10 s pause (it spun, or never started)");
    }

    [Fact]
    public void Complete_WriterFailsOnTheHelper_ThrowsItAfterReadingAndWritesNothingMore()
    {
        // Arrange: the destination refuses after ~20 KB (as the canonical limit does), while the helper writes.
        var envelope = RandomEnvelopes.Create(seed: 7, widgets: 2000).Ours;
        var destination = new RefusingWriter(limit: 20_000);
        var pipeline = new SigningPipeline(destination, expectedWidgets: 2000, TestServices.SpareCores(), inline: false);
        pipeline.Start();

        // Act
        foreach (var widget in envelope.Widgets)
        {
            pipeline.Add(widget);
        }

        var error = Assert.Throws<InvalidOperationException>(pipeline.Complete);

        // Assert
        Assert.Equal("refused", error.Message);
        Assert.True(destination.Written <= 20_000 + (64 * 1024), $"wrote {destination.Written} bytes");
        pipeline.Abandon();
    }

    [Fact]
    public void Abandon_WhileTheHelperWrites_StopsItBeforeTheDestinationIsReleased()
    {
        // Arrange
        var envelope = RandomEnvelopes.Create(seed: 11, widgets: 3000).Ours;
        var destination = new ArrayBufferWriter<byte>();
        var pipeline = new SigningPipeline(destination, expectedWidgets: 3000, TestServices.SpareCores(), inline: false);
        pipeline.Start();
        foreach (var widget in envelope.Widgets.Take(2000))
        {
            pipeline.Add(widget);
        }

        // Act
        pipeline.Abandon();
        var written = destination.WrittenCount;
        Thread.Sleep(50);

        // Assert: nothing is written after Abandon returns.
        Assert.Equal(written, destination.WrittenCount);
    }

    // Not inlined, so no local of the test's frame keeps the widget alive.
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static WeakReference<Widget> AddNewWidget(SigningPipeline pipeline, int i)
    {
        var text = i.ToString(System.Globalization.CultureInfo.InvariantCulture);
        var widget = new Widget
        {
            Id = Guid.NewGuid(),
            Property0 = text, Property1 = text, Property2 = text, Property3 = text, Property4 = text,
            Property5 = text, Property6 = text, Property7 = text, Property8 = text, Property9 = text,
            CreatedUtc = new DateTime(2026, 11, 25, 0, 0, 0, DateTimeKind.Utc),
        };
        pipeline.Add(widget);
        return new WeakReference<Widget>(widget);
    }

    private static byte[] Canonical(WidgetEnvelope envelope)
    {
        using var stream = new MemoryStream();
        CanonicalUtf8Writer.Write(envelope, stream);
        return stream.ToArray();
    }

    private sealed class RefusingWriter(int limit) : IBufferWriter<byte>
    {
        private readonly byte[] _buffer = new byte[4096];

        public int Written { get; private set; }

        public void Advance(int count)
        {
            Written += count;
            if (Written > limit)
            {
                throw new InvalidOperationException("refused");
            }
        }

        public Memory<byte> GetMemory(int sizeHint = 0) => _buffer;

        public Span<byte> GetSpan(int sizeHint = 0) => _buffer;
    }
}
