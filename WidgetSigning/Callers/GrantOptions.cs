using System.ComponentModel.DataAnnotations;

namespace WidgetSigning.Callers;

/// <summary>
/// Which caller may sign for which receiver (configuration section <c>Grants</c>): one entity per grant in an Azure
/// table on the <c>WidgetStorage</c> connection, PartitionKey the caller's object id (<c>oid</c>), RowKey the receiver.
/// An operator grants and revokes with infra/scripts/caller-grant.sh, without a redeploy.
/// </summary>
internal sealed class GrantOptions
{
    /// <summary>The configuration section these options bind to.</summary>
    public const string SectionName = "Grants";

    /// <summary>The default of <see cref="TableName"/>.</summary>
    public const string DefaultTableName = "callergrants";

    private const string Prefix = SectionName + ":";
    private const string RangeError = Prefix + "{0} must be between {1} and {2}.";

    /// <summary>The grants table. Setting: <c>Grants:TableName</c>. Default <c>callergrants</c>.</summary>
    [RegularExpression("^[A-Za-z][A-Za-z0-9]{2,62}$", ErrorMessage = Prefix + "{0} must be a table name: 3-63 letters and digits, starting with a letter.")]
    public string TableName { get; set; } = DefaultTableName;

    /// <summary>
    /// How long a caller's grants are reused before the table is read again: a revoked grant stops working within it.
    /// Setting: <c>Grants:CacheDuration</c>. Default 1 minute.
    /// </summary>
    [Range(typeof(TimeSpan), "00:00:00", "01:00:00", ParseLimitsInInvariantCulture = true, ErrorMessage = RangeError)]
    public TimeSpan CacheDuration { get; set; } = TimeSpan.FromMinutes(1);

    /// <summary>How many callers' grants one instance caches (the oldest go first). Setting: <c>Grants:MaxCachedCallers</c>. Default 10,000.</summary>
    [Range(1, 1_000_000, ErrorMessage = RangeError)]
    public int MaxCachedCallers { get; set; } = 10_000;

    /// <summary>How many grants of one caller are read; more are ignored (and logged). Setting: <c>Grants:MaxReceiversPerCaller</c>. Default 1,000.</summary>
    [Range(1, 100_000, ErrorMessage = RangeError)]
    public int MaxReceiversPerCaller { get; set; } = 1_000;
}
