using Microsoft.Extensions.Logging;

namespace WidgetSigning.SpareCores;

/// <summary>Source-generated log messages of the spare-core policy (signing's event ids, 1000–1099).</summary>
internal static partial class SpareCoreLog
{
    [LoggerMessage(EventId = 1004, Level = LogLevel.Information, Message = "Two cores hash {Scaling} times as fast as one ({Source}, {ProcessorCount} processors); signatures {Decision} (setting {Setting} is {MinimumScaling})")]
    public static partial void ScalingDecided(ILogger logger, double scaling, string source, int processorCount, string decision, string setting, double minimumScaling);
}
