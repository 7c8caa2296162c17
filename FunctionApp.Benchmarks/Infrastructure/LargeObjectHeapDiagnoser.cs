using BenchmarkDotNet.Analysers;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Engines;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Loggers;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Validators;

namespace FunctionApp.Benchmarks.Infrastructure;

/// <summary>
/// Adds two columns about the large object heap, measured over the actual (measured) iterations of an extra
/// run of its own, so the listener never slows the run the timings come from: "LOH share", the fraction of
/// the bytes allocated that went to the LOH (multiply by "Allocated" for LOH bytes per operation), and
/// "LOH ticks", the runtime's large-object allocation ticks in that window (0 = under 100 KB on the LOH
/// over the whole window). A share rather than bytes per operation because BenchmarkDotNet reports this
/// kind of diagnoser the operations of every workload stage, not of the window. In-process toolchain only
/// (which this project always uses): the listener must live in the process that runs the benchmark.
/// </summary>
public sealed class LargeObjectHeapDiagnoser : IDiagnoser, IDisposable
{
    private readonly LargeObjectHeapListener _listener = new();
    private long _ticks;
    private long _bytes;
    private long _allocated;

    /// <inheritdoc />
    public IEnumerable<string> Ids => [nameof(LargeObjectHeapDiagnoser)];

    /// <inheritdoc />
    public IEnumerable<IExporter> Exporters => [];

    /// <inheritdoc />
    public IEnumerable<IAnalyser> Analysers => [];

    /// <inheritdoc />
    public RunMode GetRunMode(BenchmarkCase benchmarkCase) => RunMode.ExtraRun;

    /// <inheritdoc />
    public void Handle(HostSignal signal, DiagnoserActionParameters parameters)
    {
        switch (signal)
        {
            case HostSignal.BeforeActualRun:
                _listener.Start();
                break;
            case HostSignal.AfterActualRun:
                _listener.Stop();
                _ticks = _listener.Ticks;
                _bytes = _listener.Bytes;
                _allocated = _listener.AllocatedBytes;
                break;
        }
    }

    /// <inheritdoc />
    public IEnumerable<Metric> ProcessResults(DiagnoserResults results)
    {
        ArgumentNullException.ThrowIfNull(results);
        var share = _bytes == 0 ? 0 : Math.Min(1.0, _bytes / (double)Math.Max(1, _allocated));
        yield return new Metric(LohShareDescriptor.Instance, share * 100);
        yield return new Metric(LohTicksDescriptor.Instance, _ticks);
    }

    /// <inheritdoc />
    public void DisplayResults(ILogger logger)
    {
    }

    /// <inheritdoc />
    public IEnumerable<ValidationError> Validate(ValidationParameters validationParameters) => [];

    /// <inheritdoc />
    public void Dispose() => _listener.Dispose();

    private sealed class LohShareDescriptor : IMetricDescriptor
    {
        public static readonly IMetricDescriptor Instance = new LohShareDescriptor();

        public string Id => "LohShare";

        public string DisplayName => "LOH share";

        public string Legend => "Percent of the bytes allocated in the measured iterations that went to the large object heap (from GCAllocationTick events)";

        public string NumberFormat => "0.0'%'";

        public UnitType UnitType => UnitType.Dimensionless;

        public string Unit => "%";

        public bool TheGreaterTheBetter => false;

        public int PriorityInCategory => 0;

        public bool GetIsAvailable(Metric metric) => true;
    }

    private sealed class LohTicksDescriptor : IMetricDescriptor
    {
        public static readonly IMetricDescriptor Instance = new LohTicksDescriptor();

        public string Id => "LohAllocationTicks";

        public string DisplayName => "LOH ticks";

        public string Legend => "GCAllocationTick events of kind Large in the diagnoser's whole actual run (one per ~100 KB on the LOH; 0 = under 100 KB in total)";

        public string NumberFormat => "0";

        public UnitType UnitType => UnitType.Dimensionless;

        public string Unit => "Count";

        public bool TheGreaterTheBetter => false;

        public int PriorityInCategory => 1;

        public bool GetIsAvailable(Metric metric) => true;
    }
}
