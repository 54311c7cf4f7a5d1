//! [`Files`]: the graph's files, twice: in path order for whoever lists them, and hashed by
//! path for whoever looks one up. A look-up in the ordered map compares the path with a dozen
//! others, each behind its own pointer (a fifth of a change-impact answer on a large
//! repository went there); in the hashed one it hashes the path once and compares it once.
//!
//! Invariant: both maps hold the same entries; every change goes through [`Files::insert`] and
//! [`Files::remove`], which change both. Both are persistent, so a snapshot's copy is cheap.

use std::borrow::Borrow;
use std::hash::Hash;
use std::sync::Arc;

use codegraph_model::Name;

use super::FileNode;
use super::sharded::ShardedMap;

#[derive(Clone, Default)]
pub(crate) struct Files {
    ordered: imbl::OrdMap<Name, Arc<FileNode>>,
    hashed: ShardedMap<Name, Arc<FileNode>>,
}

impl Files {
    pub(crate) fn get<Q>(&self, path: &Q) -> Option<&Arc<FileNode>>
    where
        Name: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.hashed.get(path)
    }

    pub(crate) fn contains_key<Q>(&self, path: &Q) -> bool
    where
        Name: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.hashed.contains_key(path)
    }

    pub(crate) fn insert(&mut self, path: Name, node: Arc<FileNode>) -> Option<Arc<FileNode>> {
        self.hashed.insert(path, node.clone());
        self.ordered.insert(path, node)
    }

    pub(crate) fn remove<Q>(&mut self, path: &Q) -> Option<Arc<FileNode>>
    where
        Name: Borrow<Q>,
        Q: Hash + Eq + Ord + ?Sized,
    {
        self.hashed.remove(path);
        self.ordered.remove(path)
    }

    pub(crate) fn len(&self) -> usize {
        self.ordered.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.ordered.is_empty()
    }

    /// The files in path order.
    pub(crate) fn values(&self) -> impl Iterator<Item = &Arc<FileNode>> {
        self.ordered.values()
    }

    /// The paths and files within `range`, in path order.
    pub(crate) fn range<R>(&self, range: R) -> impl Iterator<Item = (&Name, &Arc<FileNode>)>
    where
        R: std::ops::RangeBounds<str>,
    {
        self.ordered.range::<_, str>(range)
    }

    /// The paths and files in path order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&Name, &Arc<FileNode>)> {
        self.ordered.iter()
    }
}

impl FromIterator<(Name, Arc<FileNode>)> for Files {
    fn from_iter<I: IntoIterator<Item = (Name, Arc<FileNode>)>>(entries: I) -> Files {
        let ordered: imbl::OrdMap<Name, Arc<FileNode>> = entries.into_iter().collect();
        let hashed = ordered
            .iter()
            .map(|(path, node)| (*path, node.clone()))
            .collect();
        Files { ordered, hashed }
    }
}

impl<Q> std::ops::Index<&Q> for Files
where
    Name: Borrow<Q>,
    Q: Hash + Eq + ?Sized,
{
    type Output = Arc<FileNode>;

    fn index(&self, path: &Q) -> &Arc<FileNode> {
        self.get(path).expect("a file of the graph")
    }
}
